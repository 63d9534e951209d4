// Package replica reads one database's files from several replicas of it
// at once, as CEFT-PVFS read a mirrored file system: an object is cut
// into pieces that every healthy replica pulls from a shared queue, so
// each replica's share follows its measured throughput and two healthy
// replicas double the read parallelism. A replica far slower than the
// others (a hot spot: a busy MinIO node, a throttled bucket, a far
// region) is skipped for a cool-down and then probed again; a piece
// stuck on a slow replica at the tail is hedged on a faster one; a piece
// that fails on one replica is read from another. The caller checks the
// bytes against the manifest's hash: a Set knows nothing of hashes.
//
// A worker makes one Set for its life, over each replica's folder of the
// database build (manifest.Files of each store), and hands it to its
// shard cache:
//
//	set := replica.New([]replica.Source{{Name: "s3://a/db", Store: a}, {Name: "s3://b/db", Store: b}},
//		replica.Options{Log: log})
//	cache.UseReplicas(set)
//	...
//	log.Info("shard reads", "replicas", set.String()) // set.Stats() for metrics
//
// docs/concepts.md ("Replicated databases: reads") gives the algorithm
// and its constants.
package replica
