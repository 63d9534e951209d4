package regen

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/blastvol"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

func sh(t *testing.T, dir string, argv ...string) []byte {
	t.Helper()
	return shBatch(t, dir, blast.Alone, argv...)
}

// shBatch runs argv with BLAST+ batches of b letters.
func shBatch(t *testing.T, dir string, b int, argv ...string) []byte {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), blast.BatchEnvValue(b), "BLAST_USAGE_REPORT=false")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v: %s", argv, err, stderr.String())
	}
	return out
}

type record struct{ id, text string }

func records(fasta string) []record {
	var recs []record
	for _, r := range strings.SplitAfter(fasta, "\n>") {
		r = strings.TrimPrefix(r, ">")
		r = strings.TrimSuffix(r, ">")
		if r == "" {
			continue
		}
		id, _, _ := strings.Cut(r, " ")
		id, _, _ = strings.Cut(id, "\n")
		recs = append(recs, record{id: id, text: ">" + r})
	}
	return recs
}

// TestReportEqualsWholeDatabase: a report regenerated from shards that
// reorder the database equals BLAST+'s report of the query on the whole
// database, byte for byte, in every report format, for blastn and
// blastp, with tied subjects and a query without hits.
func TestReportEqualsWholeDatabase(t *testing.T) {
	if _, err := exec.LookPath("blastdbcmd"); err != nil {
		t.Skip("BLAST+ not installed")
	}
	for _, protein := range []bool{false, true} {
		program, dbtype := blast.Program("blastn"), manifest.Nucleotide
		if protein {
			program, dbtype = "blastp", manifest.Protein
		}
		t.Run(string(program), func(t *testing.T) {
			dir := t.TempDir()
			var dbFA, qFA bytes.Buffer
			o := synth.Options{Seed: 11, Protein: protein, Families: 4, Members: 8, MinLen: 200, MaxLen: 400, Mutation: map[bool]float64{false: 0.03, true: 0.1}[protein],
				Queries: 3, QueryFrac: 0.7, Unrelated: 10, Duplicates: 3, FlankMax: 20}
			if err := synth.Write(o, &dbFA, &qFA); err != nil {
				t.Fatal(err)
			}
			recs := records(dbFA.String())
			if err := os.WriteFile(filepath.Join(dir, "db.fa"), dbFA.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			sh(t, dir, "makeblastdb", "-in", "db.fa", "-dbtype", string(dbtype), "-parse_seqids", "-out", "refdb", "-title", "refdb")
			// Three shards, each a run of the database's sequences, as
			// db shard builds them.
			ordinal := map[string]int64{}
			shardOf := map[string]string{}
			var letters int64
			for k := 0; k < 3; k++ {
				var b strings.Builder
				for i := k * len(recs) / 3; i < (k+1)*len(recs)/3; i++ {
					b.WriteString(recs[i].text)
					shardOf[strings.ToUpper(recs[i].id)] = filepath.Join(dir, "shard"+strconv.Itoa(k))
				}
				name := "shard" + strconv.Itoa(k) + ".fa"
				if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				sh(t, dir, "makeblastdb", "-in", name, "-dbtype", string(dbtype), "-parse_seqids", "-out", "shard"+strconv.Itoa(k))
			}
			for i, r := range recs {
				ordinal[strings.ToUpper(r.id)] = int64(i)
				seq := r.text[strings.IndexByte(r.text, '\n')+1:]
				letters += int64(len(strings.ReplaceAll(seq, "\n", "")))
			}
			// The database was built long before its shards, and they
			// carry its date, as db shard's do: BLAST prints the newest
			// volume's date, so shards built a minute after refdb
			// would otherwise print a later one.
			if err := blastvol.SetDate(filepath.Join(dir, "refdb"+indexExt(dbtype)), "Jan 2, 2024  3:04 PM"); err != nil {
				t.Fatal(err)
			}
			h, err := blastvol.ReadHeader(filepath.Join(dir, "refdb"+indexExt(dbtype)))
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 3; k++ {
				if err := blastvol.SetDate(filepath.Join(dir, "shard"+strconv.Itoa(k)+indexExt(dbtype)), h.Date); err != nil {
					t.Fatal(err)
				}
			}
			db := Database{Name: "refdb", Type: dbtype, Sequences: int64(len(recs)), Letters: letters, Date: h.Date}
			// A subject as the shards hold it, from the id BLAST prints.
			subjectsOf := func(out []byte) []Subject {
				var subjects []Subject
				seen := map[string]bool{}
				for _, l := range strings.Fields(string(out)) {
					key := strings.ToUpper(l)
					if _, ok := ordinal[key]; !ok {
						// A -parse_seqids database may print an accession-shaped id typed ("gb|rnd00026|").
						for _, part := range strings.Split(key, "|") {
							if _, ok := ordinal[part]; ok && part != "" {
								key = part
							}
						}
					}
					if seen[key] {
						continue
					}
					seen[key] = true
					subjects = append(subjects, Subject{DB: shardOf[key], IDs: []string{l}, Ordinal: ordinal[key]})
				}
				return subjects
			}
			queries := records(qFA.String())
			queries = append(queries, record{id: "nohits", text: ">nohits nothing like it\n" + strings.Repeat(map[bool]string{false: "ACGTTGCA", true: "WWCCMMHH"}[protein], 8) + "\n"})
			for qi, q := range queries {
				qfile := fmt.Sprintf("q%d.fa", qi)
				if err := os.WriteFile(filepath.Join(dir, qfile), []byte(q.text), 0o644); err != nil {
					t.Fatal(err)
				}
				subjects := subjectsOf(sh(t, dir, string(program), "-db", "refdb", "-query", qfile, "-outfmt", "6 sseqid", "-max_target_seqs", "500"))
				if q.id != "nohits" && len(subjects) < 3 {
					t.Fatalf("query %s: %d subjects, want a family's", q.id, len(subjects))
				}
				for _, code := range blast.ReportCodes {
					arg, f := reportFormat(t, code)
					want := sh(t, dir, string(program), "-db", "refdb", "-query", qfile, "-outfmt", arg, "-max_target_seqs", "500")
					got, err := Report(context.Background(), filepath.Join(dir, "scratch"), db,
						Search{Program: program, Format: f, MaxTargetSeqs: 500}, []byte(q.text), subjects)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
						for i := range min(len(g), len(w)) {
							if g[i] != w[i] {
								t.Fatalf("query %s outfmt %d: line %d differs:\n got  %q\n want %q", q.id, code, i+1, g[i], w[i])
							}
						}
						t.Fatalf("query %s outfmt %d: %d lines, want %d", q.id, code, len(g), len(w))
					}
				}
			}
			batches(t, dir, db, program, queries, subjectsOf)
			if !protein {
				keepsOwnSubjects(t, dir, db, program, queries, subjectsOf(sh(t, dir, "blastdbcmd", "-db", "refdb", "-entry", "all", "-outfmt", "%a")))
			}
		})
	}
}

// reportFormat is the -outfmt argument of a report format and its
// parsed form.
func reportFormat(t *testing.T, code int) (string, *blast.Format) {
	t.Helper()
	arg := strconv.Itoa(code)
	if code == 7 {
		arg = "7 qseqid sseqid pident evalue bitscore staxid"
	}
	f, err := blast.ParseFormat(arg)
	if err != nil {
		t.Fatal(err)
	}
	return arg, f
}

// batches: the queries searched as one BLAST+ batch (Batch), each
// against the subjects it hits in that batch, give BLAST+'s report of the
// query file in its batches, in every report format.
func batches(t *testing.T, dir string, db Database, program blast.Program, queries []record, subjectsOf func([]byte) []Subject) {
	t.Helper()
	b := blast.BatchLetters(program, nil, blast.BatchingBLAST)
	var all strings.Builder
	for _, q := range queries {
		all.WriteString(q.text)
	}
	if err := os.WriteFile(filepath.Join(dir, "all.fa"), []byte(all.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	hits := map[string][]byte{}
	for _, l := range strings.Split(string(shBatch(t, dir, b, string(program), "-db", "refdb", "-query", "all.fa", "-outfmt", "6 qseqid sseqid", "-max_target_seqs", "500")), "\n") {
		if q, s, ok := strings.Cut(l, "\t"); ok {
			hits[q] = append(hits[q], s+"\n"...)
		}
	}
	qs := make([]BatchQuery, len(queries))
	for i, q := range queries {
		qs[i] = BatchQuery{FASTA: []byte(q.text), Subjects: subjectsOf(hits[q.id])}
	}
	for _, code := range blast.ReportCodes {
		arg, f := reportFormat(t, code)
		want := shBatch(t, dir, b, string(program), "-db", "refdb", "-query", "all.fa", "-outfmt", arg, "-max_target_seqs", "500")
		pieces, err := Batch(context.Background(), filepath.Join(dir, "scratch"), db,
			Search{Program: program, Format: f, MaxTargetSeqs: 500, BatchLetters: b}, qs, 1, len(qs))
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Join(pieces, nil); !bytes.Equal(got, want) {
			t.Fatalf("a batch, outfmt %d: %s", code, refsearch.Diff(got, want))
		}
	}
}

// keepsOwnSubjects: a query of a batch that did not keep all its hits
// (More), among more subjects than BLAST ranks at once
// (-max_target_seqs 1: 10), shows only its own subjects, though the batch
// is searched against all; told that it kept all, it shows another.
func keepsOwnSubjects(t *testing.T, dir string, db Database, program blast.Program, queries []record, all []Subject) {
	t.Helper()
	a := queries[0]
	hit := strings.Fields(string(sh(t, dir, string(program), "-db", "refdb", "-query", "q0.fa", "-outfmt", "6 sacc", "-max_target_seqs", "500")))
	var own Subject
	for _, s := range all {
		if strings.EqualFold(s.IDs[0], hit[len(hit)-1]) {
			own = s // its last subject, not its best
		}
	}
	if own.IDs == nil || len(all) <= 10 {
		t.Fatalf("query %s: its last hit %s not among the database's %d subjects", a.id, hit[len(hit)-1], len(all))
	}
	f, err := blast.ParseFormat("7 qseqid sacc")
	if err != nil {
		t.Fatal(err)
	}
	s := Search{Program: program, Format: f, MaxTargetSeqs: 1, BatchLetters: blast.BatchLetters(program, nil, blast.BatchingBLAST)}
	for _, more := range []bool{true, false} {
		qs := []BatchQuery{{FASTA: []byte(a.text), Subjects: []Subject{own}, More: more}, {FASTA: []byte(queries[1].text), Subjects: all}}
		pieces, err := Batch(context.Background(), filepath.Join(dir, "scratch"), db, s, qs, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		var shown []string
		for _, l := range strings.Split(string(pieces[0]), "\n") {
			if f := strings.Split(l, "\t"); len(f) == 2 {
				shown = append(shown, f[1])
			}
		}
		if own := len(shown) == 1 && strings.EqualFold(shown[0], hit[len(hit)-1]); own != more {
			t.Fatalf("more %v: query %s shows %q; kept %s", more, a.id, shown, hit[len(hit)-1])
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"nt", "refseq_protein", "swissprot.v5", "my-db"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "two words", "../etc", "-db", "a/b"} {
		if err := CheckName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
