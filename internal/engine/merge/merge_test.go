package merge

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// hit builds one line's metadata; Bitscore and Size are irrelevant to the
// order and left at fixed values.
func hit(src, idx int, ord int64, ev float64, score int64) Hit {
	return Hit{Evalue: ev, Bitscore: float64(score) / 2, Score: score, Ordinal: ord, Size: 10, Source: src, Index: idx}
}

// withSLen returns h with a subject length.
func withSLen(h Hit, slen int64) Hit {
	h.SLen = slen
	return h
}

// ref names a line by where it came from.
type ref struct{ Source, Index int }

func refs(hits []Hit) []ref {
	out := make([]ref, len(hits))
	for i, h := range hits {
		out[i] = ref{h.Source, h.Index}
	}
	return out
}

// subjectsOf returns the distinct subject ordinals in order of appearance.
func subjectsOf(hits []Hit) []int64 {
	var out []int64
	for i, h := range hits {
		if i == 0 || hits[i-1].Ordinal != h.Ordinal {
			out = append(out, h.Ordinal)
		}
	}
	return out
}

func TestMergeOrder(t *testing.T) {
	tests := []struct {
		name string
		hits []Hit
		opts Options
		want []ref
	}{
		{
			name: "empty",
			hits: nil,
			want: nil,
		},
		{
			name: "one source keeps its order",
			hits: []Hit{hit(0, 0, 5, 1e-30, 90), hit(0, 1, 9, 1e-20, 80), hit(0, 2, 1, 1e-10, 70)},
			want: []ref{{0, 0}, {0, 1}, {0, 2}},
		},
		{
			name: "interleave by evalue ascending",
			hits: []Hit{
				hit(0, 0, 1, 1e-50, 100), hit(0, 1, 2, 1e-10, 60),
				hit(1, 0, 3, 1e-40, 90), hit(1, 1, 4, 1e-5, 40),
			},
			want: []ref{{0, 0}, {1, 0}, {0, 1}, {1, 1}},
		},
		{
			name: "equal evalue: higher raw score first",
			hits: []Hit{hit(0, 0, 1, 1e-10, 50), hit(1, 0, 2, 1e-10, 60)},
			want: []ref{{1, 0}, {0, 0}},
		},
		{
			name: "equal evalue and score: higher ordinal first",
			hits: []Hit{hit(0, 0, 3, 1e-10, 50), hit(1, 0, 8, 1e-10, 50), hit(2, 0, 5, 1e-10, 50)},
			want: []ref{{1, 0}, {2, 0}, {0, 0}},
		},
		{
			name: "subject length ignored when not length-dependent",
			hits: []Hit{withSLen(hit(0, 0, 3, 1e-10, 50), 100), withSLen(hit(1, 0, 8, 1e-10, 50), 900)},
			want: []ref{{1, 0}, {0, 0}},
		},
		{
			name: "length-dependent: shorter subject before ordinal",
			hits: []Hit{withSLen(hit(0, 0, 3, 1e-10, 50), 100), withSLen(hit(1, 0, 8, 1e-10, 50), 900)},
			opts: Options{LengthDependentEvalues: true},
			want: []ref{{0, 0}, {1, 0}},
		},
		{
			name: "length-dependent: score still beats length",
			hits: []Hit{withSLen(hit(0, 0, 3, 1e-10, 50), 100), withSLen(hit(1, 0, 8, 1e-10, 51), 900)},
			opts: Options{LengthDependentEvalues: true},
			want: []ref{{1, 0}, {0, 0}},
		},
		{
			name: "length-dependent: equal length falls back to ordinal",
			hits: []Hit{withSLen(hit(0, 0, 3, 1e-10, 50), 100), withSLen(hit(1, 0, 8, 1e-10, 50), 100)},
			opts: Options{LengthDependentEvalues: true},
			want: []ref{{1, 0}, {0, 0}},
		},
		{
			name: "HSPs of a subject stay together in input order",
			hits: []Hit{
				// Subject 1: three HSPs, the later ones worse than subject 2.
				hit(0, 0, 1, 1e-50, 100), hit(0, 1, 1, 1e-8, 55), hit(0, 2, 1, 1e-3, 30),
				hit(1, 0, 2, 1e-20, 70), hit(1, 1, 2, 1e-2, 25),
				hit(0, 3, 3, 1e-4, 35),
			},
			want: []ref{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {0, 3}},
		},
		{
			name: "a subject is ordered by its first HSP only",
			hits: []Hit{
				// Subject 7's second HSP is better than subject 4's first,
				// but subjects are placed by their first HSP.
				hit(0, 0, 7, 1e-10, 60), hit(0, 1, 7, 1e-40, 90),
				hit(1, 0, 4, 1e-20, 70),
			},
			want: []ref{{1, 0}, {0, 0}, {0, 1}},
		},
		{
			name: "same-source tie run re-ordered by ordinal descending",
			hits: []Hit{
				// The shard group breaks ties by its own order; the whole
				// database would have put the highest ordinal first.
				hit(0, 0, 3, 1e-10, 50), hit(0, 1, 7, 1e-10, 50), hit(0, 2, 5, 1e-10, 50),
				hit(0, 3, 1, 1e-5, 40),
			},
			want: []ref{{0, 1}, {0, 2}, {0, 0}, {0, 3}},
		},
		{
			name: "same-source tie run moves whole subjects",
			hits: []Hit{
				hit(0, 0, 3, 1e-10, 50), hit(0, 1, 3, 1e-2, 20),
				hit(0, 2, 7, 1e-10, 50), hit(0, 3, 7, 1e-1, 18),
			},
			want: []ref{{0, 2}, {0, 3}, {0, 0}, {0, 1}},
		},
		{
			name: "same-source tie run interleaved with another source",
			hits: []Hit{
				hit(0, 0, 3, 1e-10, 50), hit(0, 1, 9, 1e-10, 50),
				hit(1, 0, 6, 1e-10, 50),
			},
			want: []ref{{0, 1}, {1, 0}, {0, 0}},
		},
		{
			name: "same source, equal printed evalue, different score: BLAST's order kept",
			hits: []Hit{
				// BLAST's unrounded E-values put the lower score first here;
				// the printed digits cannot show it and the merge must not
				// re-sort within a source.
				hit(0, 0, 1, 1e-10, 50), hit(0, 1, 9, 1e-10, 60),
			},
			want: []ref{{0, 0}, {0, 1}},
		},
		{
			name: "length-dependent, same source, different length: BLAST's order kept",
			hits: []Hit{withSLen(hit(0, 0, 1, 1e-10, 50), 900), withSLen(hit(0, 1, 9, 1e-10, 50), 100)},
			opts: Options{LengthDependentEvalues: true},
			want: []ref{{0, 0}, {0, 1}},
		},
		{
			name: "not length-dependent, same source, different length: tie run re-ordered",
			hits: []Hit{withSLen(hit(0, 0, 1, 1e-10, 50), 900), withSLen(hit(0, 1, 9, 1e-10, 50), 100)},
			want: []ref{{0, 1}, {0, 0}},
		},
		{
			name: "sources are numbered sparsely",
			hits: []Hit{hit(17, 4, 1, 1e-9, 40), hit(3, 11, 2, 1e-12, 45)},
			want: []ref{{3, 11}, {17, 4}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refs(Merge(tt.hits, tt.opts))
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Merge order\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestMergeMaxTargetSeqs(t *testing.T) {
	// Four subjects over two sources; subject 1 has three HSPs, subject 3 two.
	hits := []Hit{
		hit(0, 0, 1, 1e-50, 100), hit(0, 1, 1, 1e-30, 80), hit(0, 2, 1, 1e-3, 20),
		hit(1, 0, 2, 1e-40, 90),
		hit(1, 1, 3, 1e-20, 70), hit(1, 2, 3, 1e-1, 15),
		hit(0, 3, 4, 1e-10, 50),
	}
	all := []ref{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}}
	tests := []struct {
		n    int
		want []ref
	}{
		{0, all},
		{1, all[:3]},
		{2, all[:4]},
		{3, all[:6]},
		{4, all},
		{100, all},
		{-1, all}, // negative: no limit, like 0
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			got := refs(Merge(hits, Options{MaxTargetSeqs: tt.n}))
			if !slices.Equal(got, tt.want) {
				t.Errorf("MaxTargetSeqs %d\n got %v\nwant %v", tt.n, got, tt.want)
			}
		})
	}
}

func TestMergeEvalueCutoff(t *testing.T) {
	hits := []Hit{
		hit(0, 0, 1, 1e-20, 80), hit(0, 1, 1, 0.5, 20), // second HSP above the cut-off
		hit(1, 0, 2, 1e-3, 40),
		hit(1, 1, 3, 1e-3*(1+1e-12), 39), // printed rounding slack: kept
		hit(0, 2, 4, 2e-3, 30),           // above
		hit(1, 2, 5, 5, 10),              // above
	}
	tests := []struct {
		name   string
		cutoff float64
		max    int
		want   []ref
	}{
		{"no cut-off", 0, 0, []ref{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {1, 2}}},
		{"cut-off 1e-3 keeps equal values", 1e-3, 0, []ref{{0, 0}, {1, 0}, {1, 1}}},
		{"cut-off then max target seqs", 1e-3, 2, []ref{{0, 0}, {1, 0}}},
		{"cut-off removes everything", 1e-30, 0, nil},
		{"cut-off above all values", 10, 0, []ref{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {1, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Merge(hits, Options{Evalue: tt.cutoff, MaxTargetSeqs: tt.max})
			if tt.want == nil {
				if res != nil {
					t.Errorf("got %v, want nil", refs(res))
				}
				return
			}
			if got := refs(res); !slices.Equal(got, tt.want) {
				t.Errorf("\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestMergeDoesNotModifyInput(t *testing.T) {
	hits := []Hit{hit(1, 0, 2, 1e-5, 40), hit(0, 0, 1, 1e-10, 50), hit(0, 1, 3, 1e-10, 50)}
	before := slices.Clone(hits)
	Merge(hits, Options{Evalue: 1e-6, MaxTargetSeqs: 1})
	if !slices.Equal(hits, before) {
		t.Errorf("Merge modified its input:\n got %v\nwant %v", hits, before)
	}
}

func TestMergeInputOrderIrrelevant(t *testing.T) {
	hits := []Hit{
		hit(0, 0, 10, 1e-50, 100), hit(0, 1, 10, 1e-9, 45),
		hit(0, 2, 3, 1e-10, 50), hit(0, 3, 7, 1e-10, 50), // tie run
		hit(1, 0, 12, 1e-40, 90),
		hit(1, 1, 4, 1e-10, 50),
		hit(1, 2, 4, 1e-2, 22),
		hit(2, 0, 1, 1e-60, 110),
		hit(2, 1, 8, 1e-1, 12),
	}
	for _, opts := range []Options{{}, {MaxTargetSeqs: 3}, {Evalue: 1e-5}, {LengthDependentEvalues: true}} {
		want := refs(Merge(hits, opts))
		for seed := uint64(1); seed <= 20; seed++ {
			r := rand.New(rand.NewPCG(seed, 7))
			shuffled := slices.Clone(hits)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if got := refs(Merge(shuffled, opts)); !slices.Equal(got, want) {
				t.Fatalf("opts %+v, seed %d: shuffled input changed the result\n got %v\nwant %v", opts, seed, got, want)
			}
		}
	}
}

// subject is one subject of a generated query: its key (first HSP) and
// how many HSPs it has.
type subject struct {
	ord   int64
	ev    float64
	score int64
	hsps  int
}

// trueOrder generates n subjects in BLAST's global order. With coarse,
// E-values and scores come from small sets (so printed values tie and the
// order falls to score and then ordinal); otherwise every E-value is
// distinct.
func trueOrder(r *rand.Rand, n int, coarse bool) []subject {
	subs := make([]subject, n)
	perm := r.Perm(n * 3) // unique ordinals, scattered over a larger database
	for i := range subs {
		s := subject{ord: int64(perm[i]), hsps: 1 + r.IntN(3)}
		if coarse {
			s.ev = []float64{1e-30, 1e-10, 1e-3}[r.IntN(3)]
			s.score = int64(20 + r.IntN(4))
		} else {
			s.ev = r.Float64() * 10
			s.score = int64(r.IntN(1000))
		}
		subs[i] = s
	}
	o := Options{}
	slices.SortFunc(subs, func(a, b subject) int {
		return o.compare(&Hit{Evalue: a.ev, Score: a.score, Ordinal: a.ord}, &Hit{Evalue: b.ev, Score: b.score, Ordinal: b.ord})
	})
	if !coarse {
		for i := 1; i < len(subs); i++ {
			if subs[i].ev == subs[i-1].ev {
				panic("generator made a tie")
			}
		}
	}
	return subs
}

// splitSources deals the subjects at random to k sources; each source lists
// its subjects in the true order, each subject's HSPs together. It returns
// the hits (shuffled) and the expected merged lines.
func splitSources(r *rand.Rand, subs []subject, k int) (hits, want []Hit) {
	next := make([]int, k)
	for _, s := range subs {
		src := r.IntN(k)
		for h := 0; h < s.hsps; h++ {
			// Later HSPs are worse; their values do not affect the order.
			x := Hit{
				Evalue: s.ev * float64(1+h), Score: s.score - int64(h), Ordinal: s.ord,
				Size: 50 + r.IntN(50), Source: src, Index: next[src],
			}
			next[src]++
			want = append(want, x)
		}
	}
	hits = slices.Clone(want)
	r.Shuffle(len(hits), func(i, j int) { hits[i], hits[j] = hits[j], hits[i] })
	return hits, want
}

func TestMergePropertyReproducesGlobalOrder(t *testing.T) {
	for _, coarse := range []bool{false, true} {
		for k := 1; k <= 8; k++ {
			for seed := uint64(1); seed <= 10; seed++ {
				name := fmt.Sprintf("coarse=%v/k=%d/seed=%d", coarse, k, seed)
				r := rand.New(rand.NewPCG(seed, uint64(k)))
				subs := trueOrder(r, 5+r.IntN(60), coarse)
				hits, want := splitSources(r, subs, k)

				got := Merge(hits, Options{})
				if !slices.Equal(got, want) {
					t.Fatalf("%s: merged order differs from the global order\n got %v\nwant %v",
						name, subjectsOf(got), subjectsOf(want))
				}
				for n := 1; n <= len(subs)+1; n++ {
					got := Merge(hits, Options{MaxTargetSeqs: n})
					gotSubs := subjectsOf(got)
					wantN := min(n, len(subs))
					if len(gotSubs) != wantN {
						t.Fatalf("%s: MaxTargetSeqs %d kept %d subjects", name, n, len(gotSubs))
					}
					// Exactly the first N subjects, every HSP of each.
					lines := 0
					for _, s := range subs[:wantN] {
						lines += s.hsps
					}
					if !slices.Equal(got, want[:lines]) {
						t.Fatalf("%s: MaxTargetSeqs %d: not the first %d subjects\n got %v\nwant %v",
							name, n, wantN, gotSubs, subjectsOf(want[:lines]))
					}
				}
			}
		}
	}
}

func BenchmarkMerge8x2000(b *testing.B) {
	const sources, perSource = 8, 2000
	r := rand.New(rand.NewPCG(42, 42))
	subs := trueOrder(r, sources*perSource, false)
	hits := make([]Hit, 0, len(subs))
	next := make([]int, sources)
	for i, s := range subs {
		src := i % sources
		hits = append(hits, Hit{Evalue: s.ev, Score: s.score, Ordinal: s.ord, Size: 80, Source: src, Index: next[src]})
		next[src]++
	}
	r.Shuffle(len(hits), func(i, j int) { hits[i], hits[j] = hits[j], hits[i] })
	opts := Options{MaxTargetSeqs: 500}
	b.ReportAllocs()
	for b.Loop() {
		if got := Merge(hits, opts); len(got) != 500 {
			b.Fatalf("got %d hits", len(got))
		}
	}
}

// Ensure the helper sorts as the package does (a guard for the generator).
func TestMergeGeneratorUsesPackageOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	subs := trueOrder(r, 200, true)
	if !slices.IsSortedFunc(subs, func(a, b subject) int {
		return cmp.Or(cmp.Compare(a.ev, b.ev), cmp.Compare(b.score, a.score), cmp.Compare(b.ord, a.ord))
	}) {
		t.Fatal("generated subjects are not in BLAST's order")
	}
}

func TestMergeZeroEvalueTiesIgnoreLength(t *testing.T) {
	// Protein E-values depend on the subject's length, but at 0 they
	// underflowed: BLAST orders equal scores by ordinal (higher first),
	// whatever the lengths.
	o := Options{LengthDependentEvalues: true}
	got := Merge([]Hit{
		withSLen(hit(0, 0, 3, 0, 900), 500),
		withSLen(hit(1, 0, 7, 0, 900), 540),
		withSLen(hit(0, 1, 9, 1e-20, 100), 200),
		withSLen(hit(1, 1, 2, 1e-20, 100), 180),
	}, o)
	if s, want := subjectsOf(got), []int64{7, 3, 2, 9}; !slices.Equal(s, want) {
		t.Errorf("subjects %v, want %v (E=0 by ordinal; equal nonzero E by length)", s, want)
	}
}

func TestMergeInOrderKeepsSourceOrder(t *testing.T) {
	// An ordered database's group breaks ties as the unsharded search
	// does, so its order is kept even where the ordinals look otherwise
	// (exact E-values differed in unprinted digits).
	hits := []Hit{hit(0, 0, 3, 1e-5, 50), hit(0, 1, 8, 1e-5, 50)}
	if s := subjectsOf(Merge(hits, Options{InOrder: true})); !slices.Equal(s, []int64{3, 8}) {
		t.Errorf("InOrder: subjects %v, want the source's [3 8]", s)
	}
	if s := subjectsOf(Merge(hits, Options{})); !slices.Equal(s, []int64{8, 3}) {
		t.Errorf("not InOrder: subjects %v, want ties re-broken by ordinal [8 3]", s)
	}
}

// A whole-database program's lines stay as BLAST printed them: psiblast
// repeats a subject once per iteration, with other E-values, and a cut
// would count it twice.
func TestMergeVerbatim(t *testing.T) {
	iter1 := []Hit{hit(0, 0, 5, 1e-50, 300), hit(0, 1, 2, 1e-10, 90)}
	iter2 := []Hit{hit(0, 2, 2, 1e-60, 320), hit(0, 3, 5, 1e-55, 310)}
	in := append(append([]Hit{}, iter2...), iter1...)
	got := Merge(in, Options{Verbatim: true, MaxTargetSeqs: 1, Evalue: 1e-20})
	want := []ref{{0, 0}, {0, 1}, {0, 2}, {0, 3}}
	if !slices.Equal(refs(got), want) {
		t.Errorf("verbatim merge = %v, want BLAST's order %v", refs(got), want)
	}
	if n := len(Merge(in, Options{MaxTargetSeqs: 1})); n == 4 {
		t.Errorf("the ordinary merge kept all %d lines: the case does not tell verbatim apart", n)
	}
}
