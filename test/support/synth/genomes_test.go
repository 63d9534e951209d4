package synth

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/refsearch"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// small is workload (a) shrunk to a test's size.
func small() Genomes {
	g := GenomeSet(200)
	g.Lineages, g.Strains, g.GenomeLen = 3, 6, 200_000
	return g
}

func write(t *testing.T, w func(db, q io.Writer) error) (db, q []byte) {
	t.Helper()
	var d, qq bytes.Buffer
	if err := w(&d, &qq); err != nil {
		t.Fatal(err)
	}
	return d.Bytes(), qq.Bytes()
}

// seqs maps each record's id to its sequence, in file order.
func seqs(fa []byte) (ids []string, s map[string][]byte, desc map[string]string) {
	s, desc = map[string][]byte{}, map[string]string{}
	var id string
	for _, l := range strings.Split(string(fa), "\n") {
		if strings.HasPrefix(l, ">") {
			head, d, _ := strings.Cut(l[1:], " ")
			id = head
			ids = append(ids, id)
			desc[id] = d
			continue
		}
		s[id] = append(s[id], l...)
	}
	return ids, s, desc
}

func TestDeterministic(t *testing.T) {
	p := ProteinSet(50)
	p.Families, p.Singletons = 200, 50
	for name, gen := range map[string]func(seed uint64) func(db, q io.Writer) error{
		"genomes":  func(seed uint64) func(db, q io.Writer) error { g := small(); g.Seed = seed; return g.Write },
		"proteins": func(seed uint64) func(db, q io.Writer) error { pp := p; pp.Seed = seed; return pp.Write },
	} {
		t.Run(name, func(t *testing.T) {
			d1, q1 := write(t, gen(1))
			d2, q2 := write(t, gen(1))
			if !bytes.Equal(d1, d2) || !bytes.Equal(q1, q2) {
				t.Fatal("the same seed wrote different sets")
			}
			d3, q3 := write(t, gen(2))
			if bytes.Equal(d1, d3) || bytes.Equal(q1, q3) {
				t.Fatal("another seed wrote the same set")
			}
		})
	}
}

func TestGenomeSetSizes(t *testing.T) {
	db, q := write(t, GenomeSet(500).Write)
	ids, s, desc := seqs(db)
	total := 0
	strains := map[string]bool{}
	for _, id := range ids {
		total += len(s[id])
		strains[strings.SplitN(id, "_", 2)[0]] = true
		if len(s[id]) < 2000 {
			t.Errorf("%s: %d letters, below the smallest contig", id, len(s[id]))
		}
		if strings.Trim(string(s[id]), "ACGT") != "" {
			t.Fatalf("%s: letters other than ACGT", id)
		}
	}
	if total < 40_000_000 || total > 50_000_000 {
		t.Errorf("database of %d letters, want 40-50 Mb", total)
	}
	if len(strains) != 20 || len(ids) < 100 {
		t.Errorf("%d strains in %d records, want 20 strains, half as draft contigs", len(strains), len(ids))
	}
	for _, id := range ids {
		if d := desc[id]; !strings.Contains(d, "divergence=") {
			t.Fatalf("%s: description %q", id, d)
		}
	}
	qids, qs, qdesc := seqs(q)
	random := 0
	for _, id := range qids {
		if len(qs[id]) != 300 {
			t.Errorf("%s: %d letters, want 300", id, len(qs[id]))
		}
		if qdesc[id] == "random" {
			random++
		}
	}
	if len(qids) != 500 || random == 0 || random > 40 {
		t.Errorf("%d queries, %d random, want 500 with about 3%% random", len(qids), random)
	}
}

func TestLongQuerySetSizes(t *testing.T) {
	db, q := write(t, LongQuerySet(5).Write)
	if n := len(db); n < 2_000_000 || n > 6_000_000 {
		t.Errorf("database FASTA of %d bytes, want a few Mb", n)
	}
	ids, s, _ := seqs(q)
	if len(ids) != 5 {
		t.Fatalf("%d queries, want 5", len(ids))
	}
	for _, id := range ids {
		if n := len(s[id]); n < 100_000 || n > 500_000 {
			t.Errorf("%s: %d letters, want 100-500 kb", id, n)
		}
	}
}

func TestProteinSetSizes(t *testing.T) {
	db, q := write(t, ProteinSet(150).Write)
	ids, s, _ := seqs(db)
	if len(ids) < 3000 || len(ids) > 20000 {
		t.Errorf("%d proteins, want a few thousand to 20,000", len(ids))
	}
	var lens []int
	for _, id := range ids {
		lens = append(lens, len(s[id]))
		if strings.Trim(string(s[id]), prot) != "" {
			t.Fatalf("%s: letters outside %s", id, prot)
		}
	}
	sort.Ints(lens)
	if m := lens[len(lens)/2]; m < 220 || m > 380 {
		t.Errorf("median length %d, want about 300", m)
	}
	if lens[0] < 30 || lens[len(lens)-1] < 1000 {
		t.Errorf("lengths %d..%d, want a long tail past 1000 and none below 30", lens[0], lens[len(lens)-1])
	}
	if qids, _, _ := seqs(q); len(qids) != 150 {
		t.Errorf("%d queries, want 150", len(qids))
	}
}

// TestMutationRates checks the mutator's rates: substitutions change
// letters at the rate asked (within 5 standard deviations), indels add and
// remove letters at about the rate asked.
func TestMutationRates(t *testing.T) {
	m := newMutator(3, 3, nucl, nil)
	s := m.random(1_000_000)
	for _, p := range []float64{0.001, 0.01, 0.05, 0.2} {
		got := m.substitute(s, p)
		diff := 0
		for i := range s {
			if s[i] != got[i] {
				diff++
			}
		}
		n := float64(len(s))
		if sd := math.Sqrt(n * p * (1 - p)); math.Abs(float64(diff)-n*p) > 5*sd {
			t.Errorf("substitution rate %.3f: %d of %d letters changed, want %.0f +- %.0f", p, diff, len(s), n*p, 5*sd)
		}
	}
	// Indels of 1 letter into a run of A, inserting C: the Cs count the
	// insertions, the missing As the deletions, each at rate p/2.
	const n, p = 200_000, 0.01
	im := newMutator(5, 5, "C", nil)
	got := im.indel(bytes.Repeat([]byte("A"), n), p, 1)
	ins := bytes.Count(got, []byte("C"))
	del := n - bytes.Count(got, []byte("A"))
	for what, c := range map[string]int{"insertions": ins, "deletions": del} {
		if mean := n * p / 2; math.Abs(float64(c)-mean) > 5*math.Sqrt(mean) {
			t.Errorf("indel rate %.2f: %d %s in %d letters, want %.0f", p, c, what, n, mean)
		}
	}
	// Every letter of a protein set comes from the background.
	pm := newMutator(4, 4, prot, aminoFreqs)
	counts := map[byte]int{}
	for _, c := range pm.random(200_000) {
		counts[c]++
	}
	if l, w := counts['L'], counts['W']; l < 5*w {
		t.Errorf("L %d, W %d: want background frequencies (L 9%%, W 1.3%%)", l, w)
	}
}

// TestQueriesHit runs real BLAST+ on small instances: the queries of
// held-out strains hit the database at 80-100% identity, mostly 85-99%;
// random queries do not hit; protein queries hit their families.
func TestQueriesHit(t *testing.T) {
	testenv.RequireTools(t, "blastn", "blastp", "makeblastdb")
	ctx := context.Background()
	dir := t.TempDir()
	g := small()
	dbFA, qFA := filepath.Join(dir, "db.fa"), filepath.Join(dir, "q.fa")
	if err := WriteFiles(g.Write, dbFA, qFA); err != nil {
		t.Fatal(err)
	}
	db, err := refsearch.MakeDB(ctx, dbFA, "nucl", dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := refsearch.Search(ctx, "blastn", db, qFA, "6 qseqid pident length evalue", "-task", "megablast", "-max_target_seqs", "5")
	if err != nil {
		t.Fatal(err)
	}
	best := bestIdentity(out)
	data, _ := os.ReadFile(qFA)
	ids, _, desc := seqs(data)
	var fromDB, hit, inRange, randomHits int
	for _, id := range ids {
		switch d := desc[id]; {
		case d == "random":
			if _, ok := best[id]; ok {
				randomHits++
			}
		case strings.Contains(d, "src=novel"):
		default:
			fromDB++
			if pid, ok := best[id]; ok {
				hit++
				if pid >= 85 && pid <= 99.9 {
					inRange++
				}
				if pid < 80 {
					t.Errorf("%s (%s): best identity %.1f%%, below 80%%", id, d, pid)
				}
			}
		}
	}
	t.Logf("megablast: %d of %d queries of held-out strains hit, %d of them at 85-99.9%% identity; %d random queries hit",
		hit, fromDB, inRange, randomHits)
	if hit < fromDB*95/100 || inRange < hit*80/100 || randomHits > 0 {
		t.Errorf("want at least 95%% of the held-out strains' queries hitting, 80%% of those at 85-99.9%% identity, and no random query hitting")
	}

	p := ProteinSet(40)
	p.Families, p.Singletons = 300, 100
	pdbFA, pqFA := filepath.Join(dir, "p.fa"), filepath.Join(dir, "pq.fa")
	if err := WriteFiles(p.Write, pdbFA, pqFA); err != nil {
		t.Fatal(err)
	}
	pdb, err := refsearch.MakeDB(ctx, pdbFA, "prot", filepath.Join(dir))
	if err != nil {
		t.Fatal(err)
	}
	pout, err := refsearch.Search(ctx, "blastp", pdb, pqFA, "6 qseqid pident length evalue", "-evalue", "1e-5")
	if err != nil {
		t.Fatal(err)
	}
	pbest := bestIdentity(pout)
	pdata, _ := os.ReadFile(pqFA)
	pids, _, pdesc := seqs(pdata)
	members, phit := 0, 0
	for _, id := range pids {
		if pdesc[id] == "random" {
			if _, ok := pbest[id]; ok {
				t.Errorf("random protein %s hit at E-value below 1e-5", id)
			}
			continue
		}
		members++
		if _, ok := pbest[id]; ok {
			phit++
		}
	}
	t.Logf("blastp: %d of %d family members hit their family (E < 1e-5)", phit, members)
	if phit < members*85/100 {
		t.Errorf("only %d of %d protein queries hit (E < 1e-5), want 85%%", phit, members)
	}
}

// bestIdentity is each query's first (best) hit's percent identity.
func bestIdentity(out []byte) map[string]float64 {
	best := map[string]float64{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 2 {
			continue
		}
		if _, ok := best[f[0]]; !ok {
			best[f[0]], _ = strconv.ParseFloat(f[1], 64)
		}
	}
	return best
}
