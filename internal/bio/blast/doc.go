// Package blast runs BLAST+ as a subprocess and reads its tabular output:
// the programs and their database and query types, the allowlist of options
// a user may pass through, the output columns the merge needs, and the argv
// of one invocation (never a shell).
package blast
