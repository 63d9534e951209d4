package regen

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReadIDs reads a shard's ids file ("ordinal\tid" per line, as db shard
// writes it) as ordinal -> ids: what regeneration names a subject by. A
// prebuilt database's merged entry (several deflines) has a line per
// defline's accession; all of them go into a regeneration's SEQIDLIST,
// which otherwise hides the deflines whose ids it does not list.
func ReadIDs(path string) (map[int64][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ids := map[int64][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		ord, id, ok := strings.Cut(sc.Text(), "\t")
		n, err := strconv.ParseInt(ord, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: malformed line %q", path, sc.Text())
		}
		ids[n] = append(ids[n], id)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return ids, nil
}
