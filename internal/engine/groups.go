package engine

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// shardGroups splits the shards, in id order, into groups of at most
// groupBytes each (0: one group). A task searches one group through one
// alias file: per-call setup is paid once per group, not once per shard,
// which matters when the database fits in memory (docs/benchmarks.md).
func shardGroups(m *manifest.Manifest, groupBytes, cacheBytes int64) ([][]int, error) {
	sizes := make([]int64, len(m.Shards))
	for i, s := range m.Shards {
		sizes[i] = s.Bytes()
		if cacheBytes > 0 && sizes[i] > cacheBytes {
			return nil, fmt.Errorf("--cache-bytes %d is smaller than shard %s (%d bytes)", cacheBytes, s.Name, sizes[i])
		}
	}
	limit := groupBytes
	if cacheBytes > 0 && (limit == 0 || cacheBytes < limit) {
		limit = cacheBytes
	}
	groups := groupBySize(sizes, limit)
	for _, g := range groups {
		for i, id := range g {
			g[i] = m.Shards[id].ID
		}
	}
	return groups, nil
}

// groupBySize cuts items 0..n-1, in order, into runs of at most limit
// total size (0: one run); an item larger than limit is a run alone.
func groupBySize(sizes []int64, limit int64) [][]int {
	var groups [][]int
	var cur []int
	var curBytes int64
	for i, b := range sizes {
		if len(cur) > 0 && limit > 0 && curBytes+b > limit {
			groups = append(groups, cur)
			cur, curBytes = nil, 0
		}
		cur = append(cur, i)
		curBytes += b
	}
	return append(groups, cur)
}

// groupAlias returns the -db argument for a group whose shards' files are
// in dir: a shard's own alias file, or for several shards a new alias file
// listing them with the whole database's statistics. Under a taxid filter
// or a sequence id list (filtered non-nil) every group gets an alias of
// its own carrying the statistics BLAST computes for the filtered
// database (packages taxfilter and seqidfilter).
func groupAlias(dir string, m *manifest.Manifest, g int, shards []int, filtered *dbStats) (string, error) {
	if len(shards) == 1 && filtered == nil {
		return filepath.Join(dir, m.Shards[shards[0]].Name), nil
	}
	stats := dbStats{m.Sequences, m.Letters}
	if filtered != nil {
		stats = *filtered
	}
	names := make([]string, len(shards))
	for i, id := range shards {
		names[i] = m.Shards[id].DBName
	}
	text := fmt.Sprintf("TITLE %s shards %d-%d\nDBLIST %s\nSTATS_NSEQ %d\nSTATS_TOTLEN %d\n",
		m.Name, shards[0], shards[len(shards)-1], strings.Join(names, " "), stats.seqs, stats.letters)
	// Named by its content, written by rename: runs sharing a cache
	// directory may group the shards differently (the decomposition
	// follows each run's workload) and must never read another's alias.
	sum := sha256.Sum256([]byte(text))
	name := fmt.Sprintf("blastfleet-group-%d-%d-%x", shards[0], shards[len(shards)-1], sum[:6])
	path := filepath.Join(dir, name+m.Type.AliasExt())
	if err := writeByRename(dir, path, text); err != nil {
		return "", fmt.Errorf("writing alias for shard group %d: %w", g, err)
	}
	return filepath.Join(dir, name), nil
}

// writeByRename writes text to path through a temporary file in dir, so
// a reader never sees it half written.
func writeByRename(dir, path, text string) error {
	tmp, err := os.CreateTemp(dir, ".alias-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(text)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// dbStats are the sequences and letters BLAST's statistics count.
type dbStats struct{ seqs, letters int64 }

// wholeGroup is the one shard group of a program that searches the whole
// database in each task (blast.Program.WholeDatabase): every shard, in id
// order, through one alias. A --group-bytes or --cache-bytes smaller than
// the database cannot hold it, and is refused.
func wholeGroup(m *manifest.Manifest, p blast.Program, groupBytes, cacheBytes int64) ([][]int, error) {
	var total int64
	ids := make([]int, len(m.Shards))
	for i, s := range m.Shards {
		total += s.Bytes()
		ids[i] = s.ID
	}
	for _, lim := range []struct {
		flag  string
		bytes int64
	}{{"--group-bytes", groupBytes}, {"--cache-bytes", cacheBytes}} {
		if lim.bytes > 0 && lim.bytes < total {
			return nil, fmt.Errorf("--program %s searches the whole database in one task, but %s %d is smaller than the database (%d bytes)", p, lim.flag, lim.bytes, total)
		}
	}
	return [][]int{ids}, nil
}
