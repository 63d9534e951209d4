package engine_e2e

import (
	"fmt"
	"github.com/blastfleet/blastfleet/test/support/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/synth"
)

// failFast bounds how long a run with bad input may take to fail.
const failFast = 30 * time.Second

// badCase is one bad input: the query file (written under its name), the
// engine flags, and what the error must say.
type badCase struct {
	name    string
	file    string // query file name
	queries string // its content; "" with file "" uses the good queries
	flags   []string
	want    []string         // substrings of stderr
	match   []*regexp.Regexp // patterns stderr must match
	corrupt bool             // search the database with a corrupted shard file
}

var taskError = regexp.MustCompile(`query block \d+ \(queries query\d+\.\.query\d+\) against shard group \d+ \(shards \[\d+( \d+)*\]\) on rank \d+`)

func badCases() []badCase {
	return []badCase{
		{name: "data before header", file: "q.fa", queries: "ACGTACGT\n>q1\nACGTACGTAC\n",
			want: []string{"--queries", "q.fa:1", "no header"}},
		{name: "empty sequence", file: "q.fa", queries: ">q1\nACGTACGTAC\n>q2 empty\n>q3\nACGTAAAC\n",
			want: []string{"--queries", "q.fa:3", `record "q2"`, "empty sequence"}},
		{name: "outside the alphabet", file: "q.fa", queries: ">q1\nACGTACGTAC\nACGJT\n",
			want: []string{"--queries", "q.fa:3", `record "q1"`, "invalid nucleotide character 'J'"}},
		{name: "duplicate ids", file: "q.fa", queries: ">q1 a\nACGTACGTAC\n>q2\nACGT\n>q1 b\nACGTACGTAC\n",
			want: []string{"--queries", "q.fa:5", `record "q1"`, "duplicate id", "line 1"}},
		{name: "gz name not gzip", file: "q.fa.gz", queries: ">q1\nACGTACGTAC\n",
			want: []string{"--queries", "q.fa.gz", "not a gzip stream"}},
		{name: "empty query file", file: "q.fa", queries: "",
			want: []string{"--queries", "q.fa", "no sequences"}},
		{name: "blast-option db", flags: []string{"--blast-option=-db=x"},
			want: []string{`--blast-option "-db=x"`, "-db is not allowed"}},
		{name: "blast-option outfmt", flags: []string{"--blast-option=-outfmt=5"},
			want: []string{`--blast-option "-outfmt=5"`, "-outfmt is not allowed", "--outfmt"}},
		{name: "blast-option num_threads", flags: []string{"--blast-option=-num_threads=4", "--threads", "1"},
			want: []string{`--blast-option "-num_threads=4"`, "not allowed", "--threads"}},
		{name: "blast-option remote", flags: []string{"--blast-option=-remote"},
			want: []string{`--blast-option "-remote"`, "-remote is not allowed"}},
		{name: "blast-option unknown", flags: []string{"--blast-option=-frobnicate=3"},
			want: []string{`--blast-option "-frobnicate=3"`, "-frobnicate", "allowlist"}},
		{name: "blastp on nucleotides", flags: []string{"--program", "blastp"},
			want: []string{"--program blastp", "prot database", "is nucl"}},
		// BLAST+ 2.12 accepts the option and then refuses the value when
		// the task runs: "Argument "word_size". Illegal value, expected >=4".
		{name: "blast fails in a task", flags: []string{"--blast-option=-word_size=2"},
			want:  []string{"blastn failed (exit code 1)", `Argument "word_size". Illegal value, expected >=4`},
			match: []*regexp.Regexp{taskError}},
		{name: "blast fails in a task/group per shard", flags: []string{"--blast-option=-word_size=2", "--group-bytes", "1"},
			want:  []string{"blastn failed (exit code 1)", `Argument "word_size". Illegal value, expected >=4`},
			match: []*regexp.Regexp{taskError}},
		// The cache fetches a file again when its SHA-256 is wrong, and
		// gives up on the second mismatch.
		{name: "corrupted shard", corrupt: true, flags: []string{"--group-bytes", "1"},
			want:  []string{"fetching shard 1", "shard shard-001 file shard-001.db.nsq", "SHA-256", "manifest says", "fetched twice"},
			match: []*regexp.Regexp{taskError}},
	}
}

// TestBadInput runs the engine binary on bad input: each run must fail
// fast, name the flag or record at fault, and leave no output behind (no
// file, no temp file, no object, no unfinished upload).
func TestBadInput(t *testing.T) {
	requireTools(t, "blastn", "makeblastdb")
	b := bins(t)
	f := newFixture(t, synth.Options{Seed: 3, Families: 4, Members: 4, MinLen: 300, MaxLen: 500,
		Mutation: 0.04, Queries: 6, QueryFrac: 0.6, Unrelated: 4})
	db := filepath.Join(t.TempDir(), "db")
	shard(t, b.cli, f.fasta, 3, db, nil)
	// A copy whose shard 1 has one byte flipped in its sequence file.
	bad := filepath.Join(t.TempDir(), "corrupt")
	shard(t, b.cli, f.fasta, 3, bad, nil)
	nsq := filepath.Join(testenv.BuildDir(t, bad), "shard-001.db.nsq")
	data := readFile(t, nsq)
	data[len(data)/2] ^= 0xff
	writeFile(t, nsq, data)

	// argv for a case, with the output at out.
	argv := func(t *testing.T, c badCase, out string) []string {
		q := f.queries
		if c.file != "" {
			q = filepath.Join(t.TempDir(), c.file)
			writeFile(t, q, []byte(c.queries))
		}
		database := db
		if c.corrupt {
			database = bad
		}
		program := []string{"--program", "blastn"}
		for _, fl := range c.flags {
			if fl == "--program" {
				program = nil
			}
		}
		a := []string{b.engine, "--database", database, "--queries", q, "--outfmt", "6 std",
			"--output", out, "--cache-dir", filepath.Join(t.TempDir(), "cache")}
		return append(append(a, program...), c.flags...)
	}
	check := func(t *testing.T, c badCase, r *result) {
		t.Helper()
		if r.exitCode == 0 {
			t.Fatalf("exit 0 on bad input, want an error\n%s", r)
		}
		if r.elapsed > failFast {
			t.Errorf("took %s to fail, want under %s", r.elapsed, failFast)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("error lacks %q\n%s", w, r)
			}
		}
		for _, re := range c.match {
			if !re.MatchString(r.stderr) {
				t.Errorf("error does not match %s\n%s", re, r)
			}
		}
		if !strings.Contains(r.stderr, "blastfleet-engine: error:") {
			t.Errorf("no error line\n%s", r)
		}
	}

	t.Run("file", func(t *testing.T) {
		for _, c := range badCases() {
			t.Run(c.name, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "result.tsv")
				r := run(t, failFast+10*time.Second, nil, argv(t, c, out)...)
				check(t, c, r)
				noOutputLeft(t, out)
			})
		}
	})

	t.Run("mpirun", func(t *testing.T) {
		requireTools(t, "mpirun")
		for _, c := range badCases() {
			switch c.name {
			case "outside the alphabet", "blast-option remote", "blast fails in a task/group per shard", "corrupted shard":
			default:
				continue // the in-process runs cover the rest
			}
			t.Run(c.name, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "result.tsv")
				r := run(t, failFast+10*time.Second, mpiEnv, append(mpirun(3), argv(t, c, out)...)...)
				check(t, c, r)
				noOutputLeft(t, out)
			})
		}
	})

	t.Run("s3", func(t *testing.T) {
		m := startMinIO(t, "out")
		for i, c := range badCases() {
			t.Run(c.name, func(t *testing.T) {
				prefix := fmt.Sprintf("case%02d/", i)
				r := run(t, failFast+10*time.Second, nil, argv(t, c, "s3://out/"+prefix+"result.tsv")...)
				check(t, c, r)
				noObjects(t, m, "out", prefix, prefix+"result.tsv")
			})
		}
		// Under mpirun the writers are other processes; the master still
		// aborts the upload.
		if _, err := exec.LookPath("mpirun"); err != nil {
			return
		}
		for i, c := range badCases() {
			if !strings.HasPrefix(c.name, "blast fails in a task") && c.name != "corrupted shard" {
				continue
			}
			t.Run("mpirun/"+c.name, func(t *testing.T) {
				prefix := fmt.Sprintf("mpi%02d/", i)
				r := run(t, failFast+10*time.Second, mpiEnv, append(mpirun(3), argv(t, c, "s3://out/"+prefix+"result.tsv")...)...)
				check(t, c, r)
				noObjects(t, m, "out", prefix, prefix+"result.tsv")
			})
		}
	})

	// The failed runs above must not have touched the databases.
	for _, d := range []string{db, bad} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.Contains(e.Name(), "result") || strings.Contains(e.Name(), "partial") {
				t.Errorf("%s appeared in the database %s", e.Name(), d)
			}
		}
	}
}
