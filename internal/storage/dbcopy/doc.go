// Package dbcopy copies one build of a sharded database from its store to
// another (a replica), checking every byte against the manifest's SHA-256s
// while it streams. A copy is resumable: files already there and intact
// are not copied again. The build's manifest is written last, so a reader
// checking the replica (manifest.CheckReplica) never takes a half-copied
// build for a whole one.
package dbcopy
