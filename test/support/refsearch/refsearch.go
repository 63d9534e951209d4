// Package refsearch is the yardstick of the correctness contract (docs/concepts.md#the-correctness-contract): it runs BLAST+ on the unsharded database, derives the exact global
// top N from an untruncated run, compares outputs line by line and
// measures recall. Tests and benchmarks use it; the engine does not.
package refsearch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/blastdoc"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
)

// MakeDB builds the unsharded BLAST database of a FASTA file in dir and
// returns its path (for -db).
func MakeDB(ctx context.Context, fasta, dbtype, dir string) (string, error) {
	out := filepath.Join(dir, "unsharded")
	cmd := exec.CommandContext(ctx, "makeblastdb", "-in", fasta, "-dbtype", dbtype, "-parse_seqids", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("makeblastdb: %w: %s", err, b)
	}
	return out, nil
}

// MakeNamedDB builds the unsharded BLAST database of a FASTA file in dir
// under name, its title too, and returns its path: what a regenerated
// report names (package regen) is the database's name.
func MakeNamedDB(ctx context.Context, fasta, dbtype, dir, name string) (string, error) {
	out := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "makeblastdb", "-in", fasta, "-dbtype", dbtype, "-parse_seqids", "-out", out, "-title", name)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("makeblastdb: %w: %s", err, b)
	}
	return out, nil
}

// Search runs program on db with the given -outfmt and extra arguments and
// returns its output.
func Search(ctx context.Context, program, db, queries, outfmt string, args ...string) ([]byte, error) {
	return search(ctx, "", program, db, queries, outfmt, args...)
}

// SearchBatches is the reference of the correctness contract (docs/concepts.md#the-correctness-contract): one BLAST+ run of the whole query file on the unsharded database,
// in BLAST+'s batches of the search's B (blast.BatchLetters: BATCH_SIZE is
// set, so blastn's adaptive batch size is off).
func SearchBatches(ctx context.Context, program, db, queries, outfmt string, args ...string) ([]byte, error) {
	return searchEnv(ctx, "", []string{batchEnv(program, args)}, program, db, queries, outfmt, args...)
}

// ReportBatches is SearchBatches for a report format, run in db's
// directory with -db its name, as a user names a database: BLAST+'s own
// document for the whole file.
func ReportBatches(ctx context.Context, program, db, queries, outfmt string, args ...string) ([]byte, error) {
	return searchEnv(ctx, filepath.Dir(db), []string{batchEnv(program, args)}, program, filepath.Base(db), queries, outfmt, args...)
}

// batchEnv is BATCH_SIZE for program with args (their -task).
func batchEnv(program string, args []string) string {
	var opts []blast.Option
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-task" {
			opts = append(opts, blast.Option{Name: "task", Value: args[i+1]})
		}
	}
	return blast.BatchEnvValue(blast.BatchLetters(blast.Program(program), opts, blast.BatchingBLAST))
}

// search is Search run in dir.
func search(ctx context.Context, dir, program, db, queries, outfmt string, args ...string) ([]byte, error) {
	return searchEnv(ctx, dir, nil, program, db, queries, outfmt, args...)
}

// searchEnv is search with env added to the environment.
func searchEnv(ctx context.Context, dir string, env []string, program, db, queries, outfmt string, args ...string) ([]byte, error) {
	argv := append([]string{"-db", db, "-query", queries, "-outfmt", outfmt}, args...)
	cmd := exec.CommandContext(ctx, blast.Program(program).Command(), argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "BLAST_USAGE_REPORT=false")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", program, strings.Join(argv, " "), err, stderr.String())
	}
	return out, nil
}

// ReportAlone is the reference of a report format (-outfmt code, with
// outfmt its argument): each query searched alone on db, run in db's
// directory with -db its name, as a user names a database; the reports
// framed as BLAST+ frames one run of all queries (package blastdoc).
func ReportAlone(ctx context.Context, program, db, queries string, code int, outfmt string, args ...string) ([]byte, error) {
	docs, err := alone(ctx, queries, func(ctx context.Context, path string) ([]byte, error) {
		return search(ctx, filepath.Dir(db), program, filepath.Base(db), path, outfmt, args...)
	})
	if err != nil {
		return nil, err
	}
	var out []byte
	for i, d := range docs {
		p, err := blastdoc.Piece(code, d, i+1, len(docs))
		if err != nil {
			return nil, fmt.Errorf("query %d: %w", i+1, err)
		}
		out = append(out, p...)
	}
	return out, nil
}

// SearchAlone runs program once per query of the FASTA file queries, each
// query alone in its own process, and returns the outputs concatenated in
// query order: the reference of the correctness contract (docs/concepts.md#the-correctness-contract).
// One run of all queries is not: BLAST+ searches a batch of queries
// together, and a query's hits can change with its neighbours. Two
// processes run at a time.
func SearchAlone(ctx context.Context, program, db, queries, outfmt string, args ...string) ([]byte, error) {
	outs, err := alone(ctx, queries, func(ctx context.Context, path string) ([]byte, error) {
		return Search(ctx, program, db, path, outfmt, args...)
	})
	if err != nil {
		return nil, err
	}
	return bytes.Join(outs, nil), nil
}

// alone runs one search per query of the FASTA file queries, each in its
// own process, two at a time, and returns their outputs in query order.
func alone(ctx context.Context, queries string, run func(ctx context.Context, path string) ([]byte, error)) ([][]byte, error) {
	f, err := os.Open(queries)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The protein alphabet holds every nucleotide code too.
	recs, err := fasta.ReadAll(f, queries, fasta.Protein)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "refsearch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	outs := make([][]byte, len(recs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for i, r := range recs {
		path := filepath.Join(dir, fmt.Sprintf("q%06d.fa", i))
		var buf bytes.Buffer
		if err := fasta.Write(&buf, r); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
		g.Go(func() error {
			out, err := run(ctx, path)
			outs[i] = out
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return outs, nil
}

// TopN keeps, per query, the lines of the first n distinct subjects in the
// order given: applied to an untruncated run, it is the exact top n.
// queryCol and subjectCol are 0-based tab-separated column indexes.
func TopN(out []byte, n, queryCol, subjectCol int) []byte {
	var buf bytes.Buffer
	var query string
	kept := map[string]bool{}
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if f[queryCol] != query {
			query, kept = f[queryCol], map[string]bool{}
		}
		s := f[subjectCol]
		if !kept[s] {
			if len(kept) == n {
				continue
			}
			kept[s] = true
		}
		buf.WriteString(line)
	}
	return buf.Bytes()
}

// Pairs returns the (query, subject) pairs of an output.
func Pairs(out []byte, queryCol, subjectCol int) map[[2]string]bool {
	pairs := map[[2]string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		pairs[[2]string{f[queryCol], f[subjectCol]}] = true
	}
	return pairs
}

// Recall is the share of want's (query, subject) pairs found in got.
func Recall(got, want []byte, queryCol, subjectCol int) float64 {
	w := Pairs(want, queryCol, subjectCol)
	if len(w) == 0 {
		return 1
	}
	g := Pairs(got, queryCol, subjectCol)
	found := 0
	for p := range w {
		if g[p] {
			found++
		}
	}
	return float64(found) / float64(len(w))
}

// Diff describes the first difference between two outputs, or "".
func Diff(got, want []byte) string {
	if bytes.Equal(got, want) {
		return ""
	}
	g := strings.Split(string(got), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("%d lines vs %d expected; first difference at line %d:\n got: %q\nwant: %q", len(g)-1, len(w)-1, i+1, gl, wl)
		}
	}
	return "outputs differ"
}

// WriteFile is os.WriteFile for test data, creating parent directories.
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// SameUpToTies reports whether got holds the same lines as want, in the
// same order except that subjects of one query whose first lines print
// numerically equal E-values may come in another order (columns are 0-based). It
// returns a description of the first difference, or "".
func SameUpToTies(got, want []byte, queryCol, subjectCol, evalueCol int) string {
	g, w := subjectBlocks(got, queryCol, subjectCol), subjectBlocks(want, queryCol, subjectCol)
	if len(g) != len(w) {
		return fmt.Sprintf("%d subject blocks, want %d", len(g), len(w))
	}
	// BLAST prints one value as 1.0 for one subject and 1.00 for another,
	// so printed E-values are compared as numbers.
	key := func(block string) string {
		f := strings.Split(strings.SplitN(block, "\n", 2)[0], "\t")
		if e, err := strconv.ParseFloat(f[evalueCol], 64); err == nil {
			return f[queryCol] + "\t" + strconv.FormatFloat(e, 'g', -1, 64)
		}
		return f[queryCol] + "\t" + f[evalueCol]
	}
	for i := 0; i < len(w); {
		j := i
		for j < len(w) && key(w[j]) == key(w[i]) {
			j++
		}
		gs, ws := slices.Clone(g[i:j]), slices.Clone(w[i:j])
		slices.Sort(gs)
		slices.Sort(ws)
		if !slices.Equal(gs, ws) {
			return fmt.Sprintf("subjects %d-%d (query and E-value %q) differ:\n got: %q\nwant: %q", i+1, j, key(w[i]), g[i:j], w[i:j])
		}
		i = j
	}
	return ""
}

// subjectBlocks splits output into runs of lines of one query and subject.
func subjectBlocks(out []byte, queryCol, subjectCol int) []string {
	var blocks []string
	var cur, curKey string
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		k := f[queryCol] + "\t" + f[subjectCol]
		if k != curKey && cur != "" {
			blocks = append(blocks, cur)
			cur = ""
		}
		curKey = k
		cur += line
	}
	if cur != "" {
		blocks = append(blocks, cur)
	}
	return blocks
}

// SplitQuery returns a query whose lines in the tabular output out are not
// one contiguous run (a chunk's result included twice, say), or "".
func SplitQuery(out []byte) string {
	seen := map[string]bool{}
	prev := ""
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		q, _, _ := strings.Cut(line, "\t")
		if q != prev {
			if seen[q] {
				return q
			}
			seen[q], prev = true, q
		}
	}
	return ""
}
