package shard

// balance cuts the sequences, in database order, into shards of about equal
// letters: shard k ends at the sequence boundary nearest k/shards of the
// letters. It returns the shard of each ordinal.
//
// Keeping the database's order is what makes a search of the shards equal
// BLAST's on the unsharded database when subjects tie (equal E-value and
// score): BLAST then puts the subject of higher ordinal first, and an alias
// listing the shards in id order numbers every subject in the database's
// order, so BLAST breaks every tie as it would unsharded. Balancing by
// longest-first, as mpiformatdb did, numbers them in shard order instead
// (seen: subjects of equal score in shard order on real proteins). The cost
// is balance: a shard is within about one sequence of its share on each
// side, where longest-first kept all within one sequence of each other.
// Every shard gets at least one sequence (shards <= sequences).
func balance(letters []int64, shards int) []int {
	var total int64
	for _, l := range letters {
		total += l
	}
	assign := make([]int, len(letters))
	var before int64 // letters of the sequences before ord
	shard, held := 0, 0
	for ord, l := range letters {
		if shard < shards-1 && held > 0 {
			cut := total * int64(shard+1) / int64(shards)
			// The next shard starts here when its share starts nearer
			// this sequence's start than its end, or when every
			// sequence left is needed to give each shard one.
			if before+l/2 >= cut || len(letters)-ord <= shards-1-shard {
				shard, held = shard+1, 0
			}
		}
		assign[ord] = shard
		held++
		before += l
	}
	return assign
}
