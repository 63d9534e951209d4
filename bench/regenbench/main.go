// Command regenbench measures regeneration (ParaMEDIC, docs/concepts.md#regeneration-paramedic) on an all-against-all protein search: the bytes a partition commits
// when it transfers metadata against the output in formats 6, 0 and 5,
// and what regenerating reports costs against the search alone. `make
// bench-regen` runs it through bench/regen.sh; docs/benchmarks.md holds a
// run's tables.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

const plastDB = "/usr/share/doc/plast-example/db/tursiops.fa.gz"

func main() {
	bin := flag.String("bin", "bin", "directory of blastfleet and blastfleet-engine")
	work := flag.String("work", filepath.Join(os.TempDir(), "blastfleet-bench-regen"), "work directory (reused)")
	n := flag.Int("proteins", 600, "the first N dolphin proteins: the database and the queries")
	q := flag.Int("queries", 0, "if > 0: the first Q proteins are the queries and all 16,598 the database (a database large against the queries)")
	workers := flag.Int("workers", 2, "engine workers")
	flag.Parse()
	if err := run(*bin, *work, *n, *q, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "regenbench:", err)
		os.Exit(1)
	}
}

func run(bin, work string, n, q, workers int) error {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if q > 0 {
		n = 1 << 30 // every protein
	}
	set := filepath.Join(work, fmt.Sprintf("proteins-%d.fa", n))
	letters, err := firstProteins(plastDB, set, n)
	if err != nil {
		return err
	}
	queries, qletters := set, letters
	if q > 0 {
		queries = filepath.Join(work, fmt.Sprintf("queries-%d.fa", q))
		if qletters, err = firstProteins(plastDB, queries, q); err != nil {
			return err
		}
	}
	shards := filepath.Join(work, fmt.Sprintf("shards-%d", n))
	if _, err := os.Stat(filepath.Join(shards, "manifest.json")); err != nil {
		if err := os.MkdirAll(filepath.Join(work, "shard-work"), 0o755); err != nil {
			return err
		}
		if out, err := exec.Command(filepath.Join(bin, "blastfleet"), "db", "shard", "--input", set, "--type", "prot",
			"--name", "dolphin", "--shards", "3", "--output", shards, "--work-dir", filepath.Join(work, "shard-work")).CombinedOutput(); err != nil {
			return fmt.Errorf("db shard: %v: %s", err, out)
		}
	}
	if q > 0 {
		fmt.Printf("# Regeneration: %d dolphin proteins (%d letters) against all of them (%d letters), blastp, -max_target_seqs 500, %d workers\n\n", q, qletters, letters, workers)
	} else {
		fmt.Printf("# Regeneration: %d dolphin proteins against themselves (%d letters), blastp, -max_target_seqs 500, %d workers\n\n", n, letters, workers)
	}
	type way struct{ name, outfmt, transfer string }
	ways := []way{{"tabular (6 std)", "6 std", "full"}, {"pairwise (0)", "0", "full"}, {"XML (5)", "5", "full"},
		{"metadata", "6 std", "metadata"}}
	bytes := map[string]int64{}
	secs := map[string]float64{}
	regen := map[string]float64{}
	compute := map[string]float64{}
	for _, w := range ways {
		out := filepath.Join(work, fmt.Sprintf("out-%d-%d-%s-%s", n, q, strings.ReplaceAll(w.outfmt, " ", "_"), w.transfer))
		sum := out + ".summary.json"
		start := time.Now()
		cmd := exec.Command(filepath.Join(bin, "blastfleet-engine"), "--workers", fmt.Sprint(workers), "--database", shards,
			"--queries", queries, "--program", "blastp", "--outfmt", w.outfmt, "--max-target-seqs", "500", "--transfer", w.transfer,
			"--output", out, "--summary-json", sum, "--cache-dir", filepath.Join(work, "cache"))
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", w.name, err, b)
		}
		secs[w.name] = time.Since(start).Seconds()
		st, err := os.Stat(out)
		if err != nil {
			return err
		}
		bytes[w.name] = st.Size()
		var s runrecord.Summary
		b, err := os.ReadFile(sum)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		for _, r := range s.Ranks {
			regen[w.name] += r.Phases["regenerate"]
			compute[w.name] += r.Phases["compute"]
		}
		fmt.Fprintf(os.Stderr, "%s: %s, %.1f s\n", w.name, humanBytes(bytes[w.name]), secs[w.name])
	}
	meta := bytes["metadata"]
	fmt.Println("| output | bytes | bytes / metadata's | wall | search (compute, worker-s) | regenerate (worker-s) | regenerate / search |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, w := range ways {
		fmt.Printf("| %s | %s | %.0fx | %.1f s | %.1f | %.1f | %.2f |\n", w.name, humanBytes(bytes[w.name]), float64(bytes[w.name])/float64(meta),
			secs[w.name], compute[w.name], regen[w.name], regen[w.name]/compute[w.name])
	}
	fmt.Println("\nThe last column compares the two phases of one run, measured side by side; wall times of different runs drift on a shared machine.")
	return nil
}

// firstProteins writes the first n records of a gzipped FASTA and returns
// their letters.
func firstProteins(src, dst string, n int) (int64, error) {
	f, err := os.Open(src)
	if err != nil {
		return 0, fmt.Errorf("%s (Debian's plast-example package): %w", src, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return 0, err
	}
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	recs := 0
	var letters int64
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, ">") {
			if recs++; recs > n {
				break
			}
		} else {
			letters += int64(len(strings.TrimSpace(line)))
		}
		fmt.Fprintln(w, line)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return letters, w.Flush()
}

func humanBytes(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
