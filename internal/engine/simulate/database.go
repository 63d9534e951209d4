package simulate

import "fmt"

// Database describes a synthetic sharded database: every sequence's length
// and which shard holds it. Sequences have no letters; hits only need ids,
// lengths and ordinals.
type Database struct {
	lengths []int     // by ordinal
	shards  [][]int64 // ordinals per shard, ascending
	letters []int64   // per shard
	total   int64
}

// newDatabase draws the lengths from one stream keyed by the seed, in
// ordinal order, and deals sequences round-robin (ordinal o to shard o mod
// shards): shards get about equal letters, and a shard's ordinals are not
// contiguous, as with the balanced shards of real databases (docs/concepts.md#the-correctness-contract).
func newDatabase(c *Config) *Database {
	d := &Database{lengths: make([]int, c.Subjects), shards: make([][]int64, c.Shards),
		letters: make([]int64, c.Shards)}
	r := stream(c.Seed, domainSubjects, 0, 0)
	for o := range d.lengths {
		n := c.SubjectSizes.Sample(r)
		d.lengths[o] = int(n)
		s := o % c.Shards
		d.shards[s] = append(d.shards[s], int64(o))
		d.letters[s] += n
		d.total += n
	}
	return d
}

// Sequences is the number of database sequences.
func (d *Database) Sequences() int { return len(d.lengths) }

// Letters is the whole database's length, the n of its E-values.
func (d *Database) Letters() int64 { return d.total }

// Shards is the number of shards.
func (d *Database) Shards() int { return len(d.shards) }

// Shard lists the ordinals of shard s's sequences, ascending. The slice is
// the database's own: do not modify it.
func (d *Database) Shard(s int) []int64 { return d.shards[s] }

// ShardLetters is the letters of shard s.
func (d *Database) ShardLetters(s int) int64 { return d.letters[s] }

// Length is the length of the sequence with ordinal o.
func (d *Database) Length(o int64) int { return d.lengths[o] }

// SubjectID is the id of the sequence with ordinal o, as printed in sseqid.
func SubjectID(o int64) string { return fmt.Sprintf("sim-s%d", o) }
