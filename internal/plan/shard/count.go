package shard

import "fmt"

// shardCount is the number of shards for the scanned input: Shards as
// given, or ceil(letters / TargetShardLetters) kept within [1, sequences]
// so that no shard is empty. The count is a pure function of the input, so
// every process that reads the same input derives the same one.
func shardCount(o *Options, src *source) (int, error) {
	n := int64(o.Shards)
	if o.TargetShardLetters > 0 {
		n = (src.letters + o.TargetShardLetters - 1) / o.TargetShardLetters
		n = min(max(n, 1), int64(len(src.seqs)))
	}
	if n > int64(len(src.seqs)) {
		return 0, fmt.Errorf("%d shards for %d sequences: a shard cannot be empty", n, len(src.seqs))
	}
	return int(n), nil
}
