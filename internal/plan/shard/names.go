package shard

import (
	"fmt"
	"strconv"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// shardNames gives the file names of one shard.
type shardNames struct {
	id    int
	name  string // shard-007
	db    string // shard-007.db, makeblastdb -out
	alias string // shard-007.nal or .pal
	ids   string // shard-007.ids
	fasta string // shard-007.fa, local only
	title string // "<db name> shard 7"
}

// namesFor pads ids to 3 digits, 4 from 1000 shards on (and so on), so
// names sort in shard order.
func namesFor(id, shards int, dbName string, t manifest.DBType) shardNames {
	width := max(3, len(strconv.Itoa(shards)))
	name := fmt.Sprintf("shard-%0*d", width, id)
	return shardNames{
		id:    id,
		name:  name,
		db:    name + ".db",
		alias: name + t.AliasExt(),
		ids:   name + ".ids",
		fasta: name + ".fa",
		title: fmt.Sprintf("%s shard %d", dbName, id),
	}
}
