package engine_e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// TestSAM: the engine's SAM (-outfmt 17) is what blastn prints for the
// whole query file in its BLAST+ batches on the unsharded database,
// byte for byte, its @PG line included when blastn is run as that line
// records it (the database by name, the queries by file name, -outfmt,
// -max_target_seqs, the options): on near-identical 16S-like sequences in
// two batches under -task blastn, with a query without hits first, on 3
// shards; 2 workers in one shard group, and under mpirun 3 ranks with a
// group per shard and small blocks, each output strategy, -max_target_seqs
// truncating and not; the queries and output in object storage, and a
// query file without hits, which prints nothing. Every run prints the
// same bytes, and leaves nothing beside the output.
func TestSAM(t *testing.T) {
	requireTools(t, "mpirun", "blastn", "makeblastdb", "blastdbcmd", "blastdb_aliastool")
	b := bins(t)
	data := synth.BatchingSensitive()
	data.Seed, data.Queries, data.LongQueries = 1, 28, 10 // 2 batches of blastn's 50,000 letters
	ref, db, queries := reportData(t, b, data, "nucl", ">nohits nothing like it\nACGTTGCATTGACCAGTTGACCA\n")
	if filepath.Dir(queries) != filepath.Dir(ref) {
		t.Fatalf("the queries %s are not beside the database %s: the reference's @PG would name another path", queries, ref)
	}
	type run struct {
		name, strategy string
		np             int
		args           []string
	}
	runs := []run{{"workers=2", "", 0, []string{"--workers", "2"}}}
	for _, st := range strategies {
		runs = append(runs, run{"np=3/groups=per-shard/strategy=" + st, st, 3,
			[]string{"--group-bytes", "1", "--block-letters", "20000", "--strategy", st, "--write-buffer", "64KiB"}})
	}
	var whole []byte
	for _, mts := range []int{500, 3} {
		want, err := refsearch.ReportBatches(context.Background(), "blastn", ref, filepath.Base(queries), "17",
			"-max_target_seqs", strconv.Itoa(mts), "-task", "blastn")
		if err != nil {
			t.Fatal(err)
		}
		if mts == 500 {
			whole = want
		}
		if !bytes.Contains(want, []byte("\tQuery_39\t")) || bytes.Contains(want, []byte("\tQuery_1\t")) || bytes.Contains(want, []byte("SN:Query_1\t")) {
			t.Fatalf("max-target-seqs=%d: BLAST+'s SAM lacks the last query's hits, or has the first's", mts)
		}
		for _, r := range runs {
			if mts != 500 && r.strategy != "worker-merge" {
				continue
			}
			name := fmt.Sprintf("max-target-seqs=%d/%s", mts, r.name)
			out := filepath.Join(t.TempDir(), "out.sam")
			argv := []string{b.engine}
			if r.np > 0 {
				argv = append(mpirun(r.np), b.engine)
			}
			argv = append(argv, "--database", db, "--queries", queries, "--program", "blastn", "--outfmt", "17",
				"--max-target-seqs", strconv.Itoa(mts), "--top-hits", "exact", "--blast-option=-task=blastn",
				"--output", out, "--cache-dir", filepath.Join(t.TempDir(), "cache"))
			mustRun(t, mpiTimeout, mpiEnv, append(argv, r.args...)...)
			if got := readFile(t, out); !bytes.Equal(got, want) {
				t.Errorf("%s: %s", name, refsearch.Diff(got, want))
				_ = os.WriteFile(filepath.Join(os.TempDir(), "sam-"+strconv.Itoa(mts)+".got"), got, 0o644)
				_ = os.WriteFile(filepath.Join(os.TempDir(), "sam-"+strconv.Itoa(mts)+".want"), want, 0o644)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*")); len(left) > 0 {
				t.Errorf("%s: left %v beside the output", name, left)
			}
		}
	}
	samInObjectStorage(t, b, db, queries, whole)
}

// samInObjectStorage: with the queries and the output in object storage,
// the engine's SAM is want (the queries' object has their file's name),
// and no object but the output is left; queries without hits make an
// empty object, as blastn prints nothing.
func samInObjectStorage(t *testing.T, b binaries, db, queries string, want []byte) {
	t.Helper()
	m := startMinIO(t, "input", "out")
	putObject(t, "s3://input/"+filepath.Base(queries), readFile(t, queries))
	putObject(t, "s3://input/nohits.fa", []byte(">nohits poly-T\n"+strings.Repeat("T", 60)+"\n"))
	for _, c := range []struct {
		queries, out string
		want         []byte
	}{{"s3://input/" + filepath.Base(queries), "s3://out/sam/out.sam", want}, {"s3://input/nohits.fa", "s3://out/none/out.sam", nil}} {
		mustRun(t, mpiTimeout, mpiEnv, b.engine, "--database", db, "--queries", c.queries, "--program", "blastn", "--outfmt", "17",
			"--max-target-seqs", "500", "--top-hits", "exact", "--blast-option=-task=blastn", "--workers", "2",
			"--output", c.out, "--cache-dir", filepath.Join(t.TempDir(), "cache"))
		if got := getObject(t, c.out); !bytes.Equal(got, c.want) {
			t.Errorf("%s: %s", c.out, refsearch.Diff(got, c.want))
		}
		dir, key, _ := strings.Cut(strings.TrimPrefix(c.out, "s3://out/"), "/")
		for o := range m.Client(t).ListObjects(context.Background(), "out", minio.ListObjectsOptions{Prefix: dir + "/", Recursive: true}) {
			if o.Err != nil || o.Key != dir+"/"+key {
				t.Errorf("%s: left s3://out/%s (%v)", c.out, o.Key, o.Err)
			}
		}
	}
}
