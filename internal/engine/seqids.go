package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/seqidfilter"
)

// seqidState is a worker's sequence id list, matched once against the
// database's sequence table (a common file, fetched with the first
// shard), and how each shard group is searched under it.
type seqidState struct {
	resolved *seqidfilter.Resolved
	plans    map[int]seqidPlan
}

// seqidPlan is a group's search under the list: skipped, or given the
// list file written for it.
type seqidPlan struct {
	skip   bool
	option blast.Option
}

// seqidStats are the database's statistics under the search's sequence id
// list: those BLAST counts for the whole list on the unsharded database
// (package seqidfilter); nil without a list.
func (w *worker) seqidStats(ctx context.Context) (*dbStats, error) {
	l := w.cfg.SeqidList
	if l == nil {
		return nil, nil
	}
	if w.seqids == nil {
		if w.db.SeqStats == "" {
			return nil, seqidfilter.NoTableError(l.Option(), w.db.Name)
		}
		list, err := l.Read(ctx)
		if err != nil {
			return nil, err
		}
		f, err := os.Open(filepath.Join(w.dir, w.db.SeqStats))
		if err != nil {
			return nil, fmt.Errorf("-%s: %w", l.Option(), err)
		}
		defer f.Close()
		resolved, err := seqidfilter.Resolve(f, list, w.db.Name)
		if err != nil {
			return nil, err
		}
		w.seqids = &seqidState{resolved: resolved, plans: map[int]seqidPlan{}}
	}
	seqs, letters := w.seqids.resolved.Totals()
	return &dbStats{seqs, letters}, nil
}

// seqidPlan is how group g is searched under the list; it follows
// seqidStats, which reads the list. The group's list file is named by its
// content: runs sharing a cache directory may group shards differently.
func (w *worker) seqidPlan(g int, shards []int) (seqidPlan, error) {
	if p, ok := w.seqids.plans[g]; ok {
		return p, nil
	}
	p, err := w.seqids.resolved.Plan(shards)
	if err != nil {
		return seqidPlan{}, err
	}
	var sp seqidPlan
	if p.Skip {
		sp.skip = true
	} else {
		text := strings.Join(p.List, "\n") + "\n"
		sum := sha256.Sum256([]byte(text))
		path, err := filepath.Abs(filepath.Join(w.dir, fmt.Sprintf("blastfleet-seqids-%x.txt", sum[:8])))
		if err == nil {
			err = writeByRename(w.dir, path, text)
		}
		if err != nil {
			return seqidPlan{}, fmt.Errorf("writing the sequence id list of shard group %d: %w", g, err)
		}
		sp.option = blast.Option{Name: w.cfg.SeqidList.Option(), Value: path}
	}
	w.seqids.plans[g] = sp
	return sp, nil
}
