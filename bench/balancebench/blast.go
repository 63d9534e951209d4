package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

const (
	plastDB      = "/usr/share/doc/plast-example/db/tursiops.fa.gz"
	plastQueries = "/usr/share/doc/plast-example/db/query.fa.gz"
	blastShards  = 4
)

// record is one FASTA record.
type record struct {
	id, text string // text: the whole record, header included
	letters  int
}

// readFASTA reads a (gzip) FASTA file's records.
func readFASTA(path string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	var recs []record
	var cur *record
	var text strings.Builder
	flush := func() {
		if cur != nil {
			cur.text = text.String()
			recs = append(recs, *cur)
		}
		text.Reset()
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, ">") {
			flush()
			cur = &record{id: strings.Fields(l[1:])[0]}
		} else if cur != nil {
			cur.letters += len(strings.TrimSpace(l))
		}
		text.WriteString(l)
		text.WriteByte('\n')
	}
	flush()
	return recs, sc.Err()
}

// blastSet is a real-BLAST workload: a database FASTA and queries.
type blastSet struct {
	name, program, dbType string
	dbFA, queries         string
	opts                  []string // BLAST options, for the engine and the per-query timings
	about                 string
}

// plastSet is Debian's plast-example: real proteins, the two longest
// queries 6 to 7 times the median.
func (b *bench) plastSet(dir string) (*blastSet, error) {
	recs, err := readFASTA(plastDB)
	if err != nil {
		return nil, err
	}
	var all bytes.Buffer
	for _, r := range recs {
		all.WriteString(r.text)
	}
	s := &blastSet{name: "BLAST, plast-example", program: "blastp", dbType: "prot", dbFA: filepath.Join(dir, "tursiops.fa"),
		queries: plastQueries, about: fmt.Sprintf("Debian plast-example proteins (%d database sequences), blastp", len(recs))}
	if old, err := os.ReadFile(s.dbFA); err != nil || !bytes.Equal(old, all.Bytes()) {
		if err := os.WriteFile(s.dbFA, all.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// skewedSet is the synthetic skewed nucleotide set (skewed.go).
func (b *bench) skewedSet(dir string) (*blastSet, error) {
	dbFA, queries, err := writeSkewed(dir)
	if err != nil {
		return nil, err
	}
	return &blastSet{name: "BLAST, skewed synthetic", program: "blastn", dbType: "nucl", dbFA: dbFA, queries: queries,
		opts: []string{"-task=blastn"},
		about: fmt.Sprintf("synthetic nucleotides (test/support/synth): %d short queries from %d small families (%d members, %d-%d nt) and %d very long ones (%d-%d nt ancestors, %.0f%% of them) from one family of %d members, placed at %v; %d unrelated sequences; blastn -task blastn",
			shortSet.Queries, shortSet.Families, shortSet.Members, shortSet.MinLen, shortSet.MaxLen, longSet.Queries,
			longSet.MinLen, longSet.MaxLen, 100*longSet.QueryFrac, longSet.Members, longAt, shortSet.Unrelated)}, nil
}

// blastWorkload prepares a set (an unsharded database for the per-query
// timings, shards for the engine) and measures every query's BLAST time
// alone, one thread, in order.
func (b *bench) blastWorkload(ctx context.Context, set string) (*workload, error) {
	dir := filepath.Join(b.o.work, set)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var s *blastSet
	var err error
	switch set {
	case "plast":
		for _, p := range []string{plastDB, plastQueries} {
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("%s is missing (make deps installs plast-example): %w", p, err)
			}
		}
		s, err = b.plastSet(dir)
	case "skewed":
		s, err = b.skewedSet(dir)
	default:
		err = fmt.Errorf("-blast-sets: unknown set %q (want plast, skewed)", set)
	}
	if err != nil {
		return nil, err
	}
	b.logf("%s: makeblastdb (unsharded) and blastfleet db shard --shards %d", s.name, blastShards)
	unsharded, err := refsearch.MakeDB(ctx, s.dbFA, s.dbType, dir)
	if err != nil {
		return nil, err
	}
	// Shards are keyed by their input, so a changed set gets new shards
	// and an unchanged one reuses them.
	sum, err := fileSHA(s.dbFA)
	if err != nil {
		return nil, err
	}
	shards := filepath.Join(dir, fmt.Sprintf("shards-%d-%.12s", blastShards, sum))
	if out, err := exec.CommandContext(ctx, b.cliBin, "db", "shard", "--input", s.dbFA, "--type", s.dbType,
		"--shards", fmt.Sprint(blastShards), "--output", shards).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("blastfleet db shard: %w: %s", err, out)
	}
	qs, err := readFASTA(s.queries)
	if err != nil {
		return nil, err
	}
	w := &workload{name: s.name, shards: blastShards, costOf: "each query's BLAST time alone (one thread, unsharded database), measured before the runs",
		args: []string{"--database", shards, "--queries", s.queries, "--program", s.program, "--outfmt", "6 std",
			"--max-target-seqs", "500", "--group-bytes", "1", "--cache-dir", filepath.Join(dir, "cache")}}
	var blastArgs []string
	for _, o := range s.opts {
		w.args = append(w.args, "--blast-option="+o)
		name, value, _ := strings.Cut(o, "=")
		blastArgs = append(blastArgs, name, value)
	}
	b.logf("%s: timing %s on each of the %d queries alone", s.name, s.program, len(qs))
	qfile := filepath.Join(dir, "one.fa")
	for _, q := range qs {
		if err := os.WriteFile(qfile, []byte(q.text), 0o644); err != nil {
			return nil, err
		}
		t := time.Now()
		cmd := exec.CommandContext(ctx, s.program, append([]string{"-db", unsharded, "-query", qfile, "-outfmt", "6 std",
			"-max_target_seqs", "500", "-num_threads", "1", "-out", os.DevNull}, blastArgs...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s on %s: %w: %s", s.program, q.id, err, out)
		}
		w.queries, w.lengths = append(w.queries, q.id), append(w.lengths, q.letters)
		w.costs = append(w.costs, time.Since(t).Seconds())
	}
	sorted := append([]int{}, w.lengths...)
	sort.Ints(sorted)
	var total int
	for _, l := range sorted {
		total += l
	}
	w.about = []string{
		fmt.Sprintf("%s: %d queries (%d letters; median %d, the longest %v), %d shards, outfmt \"6 std\", max_target_seqs 500",
			s.about, len(qs), total, sorted[len(sorted)/2], sorted[len(sorted)-3:], blastShards),
		fmt.Sprintf("per-query %s times alone: %s", s.program, costSummary(w.costs)),
	}
	return w, nil
}

// costSummary gives the sum, median and largest costs.
func costSummary(costs []float64) string {
	s := append([]float64{}, costs...)
	sort.Float64s(s)
	var sum float64
	for _, c := range s {
		sum += c
	}
	return fmt.Sprintf("sum %.1f s, median %.3f s, largest %.2f, %.2f, %.2f s", sum, s[len(s)/2], s[len(s)-1], s[len(s)-2], s[len(s)-3])
}

func fileSHA(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}
