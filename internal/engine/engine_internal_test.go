package engine

import (
	"bytes"
	"fmt"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/engine/merge"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// queriesOfLengths returns queries q0, q1, ... with the given lengths.
func queriesOfLengths(lengths ...int) []query {
	qs := make([]query, len(lengths))
	for i, n := range lengths {
		id := fmt.Sprintf("q%d", i)
		qs[i] = query{ID: id, Defline: id + " test", Seq: bytes.Repeat([]byte("A"), n), Len: n}
	}
	return qs
}

// span is a block [first, end).
type span struct{ first, end int }

// takeAll cuts every block and checks that they tile the queries in order.
func takeAll(t *testing.T, b *blocker) []span {
	t.Helper()
	var spans []span
	for !b.done() {
		first, end := b.take()
		if len(spans) > len(b.queries) {
			t.Fatal("more blocks than queries")
		}
		spans = append(spans, span{first, end})
	}
	next := 0
	for i, s := range spans {
		if s.first != next || s.end <= s.first {
			t.Fatalf("block %d is [%d,%d), want it to start at %d and be non-empty", i, s.first, s.end, next)
		}
		next = s.end
	}
	if next != len(b.queries) {
		t.Fatalf("blocks end at query %d of %d", next, len(b.queries))
	}
	if b.left != 0 {
		t.Errorf("blocker has %d letters left after the last block", b.left)
	}
	return spans
}

func spanLetters(qs []query, s span) int64 {
	var n int64
	for _, q := range qs[s.first:s.end] {
		n += int64(len(q.Seq))
	}
	return n
}

func TestBlockerFixed(t *testing.T) {
	tests := []struct {
		name    string
		lengths []int
		fixed   int
		want    []span
	}{
		{"one query", []int{50}, 100, []span{{0, 1}}},
		{"all fit in one block", []int{10, 20, 30}, 100, []span{{0, 3}}},
		{"exactly the target", []int{40, 60, 100}, 100, []span{{0, 2}, {2, 3}}},
		{"whole queries up to the target", []int{100, 200, 300, 50, 1000, 10}, 400,
			[]span{{0, 2}, {2, 4}, {4, 5}, {5, 6}}},
		{"longer than the target: own block", []int{10, 5000, 10, 10}, 100,
			[]span{{0, 1}, {1, 2}, {2, 4}}},
		{"first query longer than the target", []int{5000, 10}, 100, []span{{0, 1}, {1, 2}}},
		{"target of one letter: one query per block", []int{3, 3, 3}, 1, []span{{0, 1}, {1, 2}, {2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBlocker(queriesOfLengths(tt.lengths...), 1, tt.fixed, 4, false)
			if got := takeAll(t, b); !slices.Equal(got, tt.want) {
				t.Errorf("blocks %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBlockerGuidedUniform(t *testing.T) {
	for _, workers := range []int{1, 2, 4, 16} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			lengths := make([]int, 1000)
			for i := range lengths {
				lengths[i] = 100
			}
			qs := queriesOfLengths(lengths...)
			spans := takeAll(t, newBlocker(qs, 1, 0, workers, false))
			sizes := make([]int64, len(spans))
			for i, s := range spans {
				sizes[i] = spanLetters(qs, s)
			}
			// The first block takes its share of everything, in whole
			// 100-letter queries.
			if want := max(int64(100000/(2*workers)), minGuidedLetters) / 100 * 100; sizes[0] != want {
				t.Errorf("first block %d letters, want %d", sizes[0], want)
			}
			for i := 1; i < len(sizes); i++ {
				if sizes[i] > sizes[i-1] {
					t.Fatalf("block %d (%d letters) is larger than block %d (%d): sizes %v", i, sizes[i], i-1, sizes[i-1], sizes)
				}
			}
			if last := sizes[len(sizes)-1]; last > minGuidedLetters {
				t.Errorf("last block %d letters, want at most %d: sizes %v", last, minGuidedLetters, sizes)
			}
			if len(sizes) < 2*workers {
				t.Errorf("only %d blocks for %d workers", len(sizes), workers)
			}
		})
	}
}

// A unit that more work follows is cut into about one block per worker,
// with no small blocks at its end: the next unit keeps the workers busy.
func TestBlockerMoreFollows(t *testing.T) {
	lengths := make([]int, 60)
	for i := range lengths {
		lengths[i] = 100
	}
	qs := queriesOfLengths(lengths...)
	for _, c := range []struct{ workers, blocks int }{{1, 1}, {2, 2}, {4, 4}, {16, 10}} {
		spans := takeAll(t, newBlocker(qs, 1, 0, c.workers, true))
		if len(spans) != c.blocks {
			t.Errorf("%d workers: %d blocks, want %d (6000 letters, at least %d a block)", c.workers, len(spans), c.blocks, minGuidedLetters)
		}
	}
	// Without more work after it, the same unit is guided: more, smaller
	// blocks towards its end.
	if g := takeAll(t, newBlocker(qs, 1, 0, 2, false)); len(g) <= 2 {
		t.Errorf("guided: %d blocks, want more than 2", len(g))
	}
}

func TestBlockerGuidedRandomLengths(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		lengths := make([]int, 1+r.IntN(500))
		for i := range lengths {
			lengths[i] = 1 + r.IntN(3000)
		}
		qs := queriesOfLengths(lengths...)
		workers := 1 + r.IntN(8)
		b := newBlocker(qs, 1, 0, workers, false)
		var prevTarget int64 = -1
		for !b.done() {
			target := max(b.left/int64(2*workers), minGuidedLetters)
			if prevTarget >= 0 && target > prevTarget {
				t.Fatalf("seed %d: target grew from %d to %d", seed, prevTarget, target)
			}
			prevTarget = target
			first, end := b.take()
			got := spanLetters(qs, span{first, end})
			if end-first > 1 && got > target {
				t.Fatalf("seed %d: block [%d,%d) holds %d letters, target %d", seed, first, end, got, target)
			}
			// A block stops only when the next query would not fit.
			if end < len(qs) && got+int64(len(qs[end].Seq)) <= target {
				t.Fatalf("seed %d: block [%d,%d) stopped early (%d letters, next %d, target %d)",
					seed, first, end, got, len(qs[end].Seq), target)
			}
		}
		if b.next != len(qs) || b.left != 0 {
			t.Fatalf("seed %d: blocker ended at %d of %d with %d letters left", seed, b.next, len(qs), b.left)
		}
		// And a fresh blocker tiles the same queries.
		takeAll(t, newBlocker(qs, 1, 0, workers, false))
	}
}

func TestBlockFASTA(t *testing.T) {
	seq := bytes.Repeat([]byte("ACGT"), 41) // 164 letters: lines of 80, 80, 4
	qs := []query{
		{ID: "q1", Defline: "q1 first query", Seq: seq},
		{ID: "q2", Defline: "q2", Seq: []byte("ACGTN")},
		{ID: "q3", Defline: "q3 exactly eighty", Seq: bytes.Repeat([]byte("A"), 80)},
	}
	want := ">q1 first query\n" + string(seq[:80]) + "\n" + string(seq[80:160]) + "\n" + string(seq[160:]) + "\n" +
		">q2\nACGTN\n" +
		">q3 exactly eighty\n" + strings.Repeat("A", 80) + "\n"
	if got := string(blockFASTA(qs)); got != want {
		t.Errorf("blockFASTA\n got %q\nwant %q", got, want)
	}
	// Sized once (a block can be megabytes): at most a byte a query over.
	if b := blockFASTA(qs); cap(b) > len(b)+len(qs) {
		t.Errorf("blockFASTA: capacity %d for %d bytes", cap(b), len(b))
	}
	if got := blockFASTA(nil); len(got) != 0 {
		t.Errorf("blockFASTA(nil) = %q", got)
	}
}

// testManifest returns a manifest whose shard i has sizes[i] bytes over two
// files.
func testManifest(typ manifest.DBType, sizes ...int64) *manifest.Manifest {
	m := &manifest.Manifest{SchemaVersion: manifest.SchemaVersion, Name: "testdb", Type: typ}
	for i, size := range sizes {
		name := fmt.Sprintf("shard-%03d", i)
		s := manifest.Shard{
			ID: i, Name: name, DBName: name + ".db", IDsFile: name + ".ids",
			Sequences: 10 + int64(i), Letters: 1000 * (int64(i) + 1),
			Files: []manifest.File{{Name: name + ".db.nsq", Size: size - size/3}, {Name: name + ".db.nin", Size: size / 3}},
		}
		m.Shards = append(m.Shards, s)
		m.Sequences += s.Sequences
		m.Letters += s.Letters
	}
	return m
}

func TestShardGroups(t *testing.T) {
	tests := []struct {
		name       string
		sizes      []int64
		groupBytes int64
		cacheBytes int64
		want       [][]int
	}{
		{"groupBytes 0: one group", []int64{10, 20, 30}, 0, 0, [][]int{{0, 1, 2}}},
		{"groupBytes 1: one shard per group", []int64{10, 20, 30}, 1, 0, [][]int{{0}, {1}, {2}}},
		{"groups fill up to groupBytes", []int64{10, 20, 30}, 30, 0, [][]int{{0, 1}, {2}}},
		{"groupBytes above the total", []int64{10, 20, 30}, 1000, 0, [][]int{{0, 1, 2}}},
		{"a shard above groupBytes gets its own group", []int64{10, 50, 10, 10}, 20, 0, [][]int{{0}, {1}, {2, 3}}},
		{"cacheBytes bounds groups when groupBytes is 0", []int64{10, 20, 30}, 0, 35, [][]int{{0, 1}, {2}}},
		{"cacheBytes below groupBytes wins", []int64{10, 20, 30}, 100, 35, [][]int{{0, 1}, {2}}},
		{"groupBytes below cacheBytes wins", []int64{10, 20, 30}, 15, 100, [][]int{{0}, {1}, {2}}},
		{"cacheBytes equal to the largest shard", []int64{30, 30, 30}, 0, 30, [][]int{{0}, {1}, {2}}},
		{"one shard", []int64{42}, 0, 0, [][]int{{0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testManifest(manifest.Nucleotide, tt.sizes...)
			got, err := shardGroups(m, tt.groupBytes, tt.cacheBytes)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("groups %v, want %v", got, tt.want)
			}
		})
	}
}

func TestShardGroupsProperties(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		sizes := make([]int64, 1+r.IntN(40))
		for i := range sizes {
			sizes[i] = 1 + r.Int64N(1000)
		}
		m := testManifest(manifest.Protein, sizes...)
		groupBytes := []int64{0, 1, 500, 2000, 1 << 40}[r.IntN(5)]
		cacheBytes := []int64{0, 1000, 3000}[r.IntN(3)]
		groups, err := shardGroups(m, groupBytes, cacheBytes)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		limit := groupBytes
		if cacheBytes > 0 && (limit == 0 || cacheBytes < limit) {
			limit = cacheBytes
		}
		next := 0
		for gi, g := range groups {
			var bytes int64
			for _, id := range g {
				if id != next {
					t.Fatalf("seed %d: group %d holds shard %d, want %d (every shard once, in order)", seed, gi, id, next)
				}
				next++
				bytes += sizes[id]
			}
			if len(g) == 0 {
				t.Fatalf("seed %d: empty group %d", seed, gi)
			}
			if limit > 0 && len(g) > 1 && bytes > limit {
				t.Errorf("seed %d: group %d holds %d bytes, limit %d", seed, gi, bytes, limit)
			}
			if cacheBytes > 0 && bytes > cacheBytes {
				t.Errorf("seed %d: group %d (%d bytes) does not fit the cache (%d)", seed, gi, bytes, cacheBytes)
			}
			// Groups are greedy: the next shard would not have fitted.
			if gi+1 < len(groups) && limit > 0 && bytes+sizes[groups[gi+1][0]] <= limit {
				t.Errorf("seed %d: group %d closed early", seed, gi)
			}
		}
		if next != len(sizes) {
			t.Fatalf("seed %d: groups hold %d of %d shards", seed, next, len(sizes))
		}
	}
}

func TestShardGroupsShardBiggerThanCache(t *testing.T) {
	m := testManifest(manifest.Nucleotide, 10, 40, 10)
	_, err := shardGroups(m, 0, 30)
	if err == nil {
		t.Fatal("a shard larger than --cache-bytes was accepted")
	}
	for _, want := range []string{"--cache-bytes 30", "shard-001", "40 bytes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q, want it to mention %q", err, want)
		}
	}
}

func TestGroupAlias(t *testing.T) {
	tests := []struct {
		name    string
		typ     manifest.DBType
		group   int
		shards  []int
		wantDB  string // relative to dir
		wantExt string // "" when no file is written
		dblist  string
	}{
		{"one shard: its own alias", manifest.Nucleotide, 2, []int{2}, "shard-002", "", ""},
		{"nucleotide group", manifest.Nucleotide, 3, []int{1, 2, 3}, "blastfleet-group-1-3-", ".nal", "shard-001.db shard-002.db shard-003.db"},
		{"protein group", manifest.Protein, 0, []int{0, 1}, "blastfleet-group-0-1-", ".pal", "shard-000.db shard-001.db"},
		{"group id over 999", manifest.Nucleotide, 1234, []int{3, 4}, "blastfleet-group-3-4-", ".nal", "shard-003.db shard-004.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			m := testManifest(tt.typ, 10, 20, 30, 40, 50)
			db, err := groupAlias(dir, m, tt.group, tt.shards, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dir, tt.wantDB); db != want && (tt.wantExt == "" || !strings.HasPrefix(db, want)) {
				t.Errorf("-db %q, want %q", db, want)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantExt == "" {
				if len(ents) != 0 {
					t.Errorf("a one-shard group wrote %v", ents)
				}
				return
			}
			text, err := os.ReadFile(db + tt.wantExt)
			if err != nil {
				t.Fatal(err)
			}
			fields := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
				k, v, _ := strings.Cut(line, " ")
				if _, dup := fields[k]; dup {
					t.Errorf("alias repeats %s", k)
				}
				fields[k] = v
			}
			want := map[string]string{
				"TITLE":        fmt.Sprintf("testdb shards %d-%d", tt.shards[0], tt.shards[len(tt.shards)-1]),
				"DBLIST":       tt.dblist,
				"STATS_NSEQ":   fmt.Sprint(m.Sequences), // the whole database's, not the group's
				"STATS_TOTLEN": fmt.Sprint(m.Letters),
			}
			if !reflect.DeepEqual(fields, want) {
				t.Errorf("alias file\n%s\nparsed %v\nwant %v", text, fields, want)
			}
			// Writing it again (another task of the group) is harmless.
			if again, err := groupAlias(dir, m, tt.group, tt.shards, nil); err != nil || again != db {
				t.Errorf("second groupAlias: %q, %v", again, err)
			}
		})
	}
}

func TestGroupAliasUnwritableDir(t *testing.T) {
	m := testManifest(manifest.Nucleotide, 10, 20)
	_, err := groupAlias(filepath.Join(t.TempDir(), "missing"), m, 7, []int{0, 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "shard group 7") {
		t.Errorf("groupAlias into a missing directory: %v", err)
	}
}

func TestShardTargetSeqs(t *testing.T) {
	tests := []struct {
		name     string
		top      merge.TopHits
		maxSeqs  int
		dbSeqs   int64
		groups   int
		expected int
	}{
		{"exact: every database sequence", merge.TopHits{Exact: true}, 50, 100000, 5, 100000},
		{"exact: at least N", merge.TopHits{Exact: true}, 500, 20, 5, 500},
		{"exact with one group", merge.TopHits{Exact: true}, 50, 1000, 1, 1000},
		{"overfetch", merge.TopHits{Factor: 4}, 50, 100000, 5, 200},
		{"overfetch=1", merge.TopHits{Factor: 1}, 50, 100000, 5, 50},
		{"overfetch with one group", merge.TopHits{Factor: 3}, 50, 100000, 1, 150},
		{"auto with one group: as BLAST", merge.TopHits{Auto: true, Factor: 4}, 50, 100000, 1, 50},
		{"auto with several groups: overfetch", merge.TopHits{Auto: true, Factor: 4}, 50, 100000, 2, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{Spec: search.Spec{MaxTargetSeqs: tt.maxSeqs, TopHits: tt.top}}
			if got := c.shardTargetSeqs(tt.dbSeqs, tt.groups); got != tt.expected {
				t.Errorf("shardTargetSeqs(%d, %d) = %d, want %d", tt.dbSeqs, tt.groups, got, tt.expected)
			}
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	envelopes := []*envelope{
		{Setup: &setupMsg{}},
		{Write: &writeMsg{Unit: 1, Write: 2, Target: output.Target{Location: "/out/x.tsv", TempPath: "/out/.x.tsv.partial-1"}}},
		{Setup: &setupMsg{Error: "no such database"}},
		{Hello: &helloMsg{Cached: []int{0, 3, 7}}},
		{Assign: &assignMsg{Task: 12, Block: 3, Group: 2, First: 40, IDs: []string{"q40", "q41"},
			FASTA: []byte(">q40\nACGT\n>q41\nGGCC\n"), Shards: []int{4, 5}}},
		{Done: &doneMsg{Task: 12, Hits: []hitMeta{
			{Query: 0, Evalue: 1.5e-120, Bitscore: 433.1, Score: 900, SLen: 5000, Ordinal: 123456789012, Size: 71},
			{Query: 1, Evalue: 0, Bitscore: 12.5, Score: 20, SLen: 30, Ordinal: 0, Size: 40},
		}, Cached: []int{2}, BlastSeconds: 1.25}},
		{Failed: &failedMsg{Task: 9, Error: "blastn failed (exit code 2): BLAST Database error"}},
		{Contribute: &contributeMsg{Write: 4, Writer: 3, Lines: []lineRef{{Task: 1, Index: 0, RelOffset: 0}, {Task: 2, Index: 5, RelOffset: 71}}}},
		{Write: &writeMsg{Write: 4, Offset: 1 << 33, Part: 5, Size: 4 << 20, Holders: 3}},
		{Write: &writeMsg{Write: 6, Offset: 100, Part: 7, Size: 12, Holders: 1, Own: true}},
		{Piece: &pieceMsg{Write: 4, Segments: []segment{{RelOffset: 0, Data: []byte("q1\ts1\n")}, {RelOffset: 6, Data: []byte("q1\ts2\n")}}}},
		{Written: &writtenMsg{Write: 4, Part: 5, ETag: `"abc"`, Size: 12, Seconds: 0.5}},
		{Written: &writtenMsg{Write: 5, Error: "disk full"}},
		{Done: &doneMsg{Task: 3, Hits: []hitMeta{{Query: 0, Size: 6}}, Lines: [][]byte{[]byte("q1\ts1\n")}}},
		{Coll: &collMsg{Unit: 1, ID: 7, Target: output.Target{Location: "s3://b/k", UploadID: "u1"},
			Domains: []domain{{Writer: 1, Write: 3, Offset: 0, Part: 4, Size: 6 << 20}, {Writer: 2, Write: 4, Offset: 6 << 20, Part: 5, Size: 5 << 20}},
			Lines:   []collLine{{Task: 2, Index: 9, Domain: 1, RelOffset: 77}}}},
		{Coll: &collMsg{ID: 8, Domains: []domain{{Writer: 3, Size: 10}}}},
		{CollPiece: &collPieceMsg{ID: 7, Pieces: []domainPiece{{Domain: 1, Segments: []segment{{RelOffset: 77, Data: []byte("q2\ts3\n")}}}}}},
		{CollPiece: &collPieceMsg{ID: 8}},
		{Sync: &syncMsg{ID: 3}},
		{Sync: &syncMsg{ID: 3, Release: true}},
		{Arrive: &arriveMsg{ID: 3}},
		{Release: &releaseMsg{Tasks: []int{1, 2, 3}}},
		{Stop: &stopMsg{}},
		{Stop: &stopMsg{Abort: "worker 2 failed"}},
		{Summary: &RankSummary{Rank: 2, Role: "worker", WallSeconds: 3.5, Phases: map[string]float64{"compute": 2.5, "write": 0.1},
			Tasks: 7, BlastSeconds: 2.4, CacheHits: 5, CacheMisses: 2, BytesFetched: 1 << 30, BytesWritten: 999, BlocksWritten: 1}},
	}
	for i, e := range envelopes {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			got, err := decode(encode(e))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, e) {
				t.Errorf("round trip\n got %+v\nwant %+v", got, e)
			}
		})
	}
}

func TestEncodeIndependentMessages(t *testing.T) {
	// Every message is self-contained (its own gob stream): decoding one
	// does not depend on having decoded an earlier one.
	a := encode(&envelope{Hello: &helloMsg{Cached: []int{1}}})
	b := encode(&envelope{Release: &releaseMsg{Tasks: []int{9}}})
	got, err := decode(b)
	if err != nil || got.Release == nil || got.Release.Tasks[0] != 9 {
		t.Fatalf("decode(b) = %+v, %v", got, err)
	}
	got, err = decode(a)
	if err != nil || got.Hello == nil || got.Hello.Cached[0] != 1 {
		t.Fatalf("decode(a) = %+v, %v", got, err)
	}
}

func TestDecodeGarbage(t *testing.T) {
	for _, data := range [][]byte{nil, {}, []byte("not gob"), encode(&envelope{Stop: &stopMsg{}})[:5]} {
		if e, err := decode(data); err == nil {
			t.Errorf("decode(%q) = %+v, want an error", data, e)
		} else if !strings.Contains(err.Error(), "decoding message") {
			t.Errorf("decode(%q) error %q", data, err)
		}
	}
}

func TestLookupTypedIDs(t *testing.T) {
	maps := []map[string]int64{{}, {}}
	for i, ids := range []map[string]int64{{"abc00026": 7, "sp|P12345|NAME": 3, "rnd00158": 4}, {"foo": 9}} {
		for id, o := range ids {
			maps[i][ordinalKey(id)] = o
		}
	}
	for id, want := range map[string]int64{
		"abc00026":       7, // as written
		"gb|abc00026|":   7, // BLAST's reading of an accession-shaped id
		"RND00158":       4, // upper-cased by a -parse_seqids database
		"sp|P12345|NAME": 3,
		"foo":            9,
	} {
		if got, _, ok := lookup(maps, id); !ok || got != want {
			t.Errorf("lookup(%q) = %d, %v; want %d", id, got, ok, want)
		}
	}
	if _, _, ok := lookup(maps, "gb|missing|"); ok {
		t.Error("an unknown id must not be found")
	}
}

// Runs that share a cache directory may group the shards differently:
// each must get its own alias, not the other's (a bench run with one group
// once searched another run's two-shard alias and lost hits).
func TestGroupAliasesOfOtherGroupings(t *testing.T) {
	dir := t.TempDir()
	m := testManifest(manifest.Nucleotide, 10, 20, 30, 40)
	all, err := groupAlias(dir, m, 0, []int{0, 1, 2, 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	half, err := groupAlias(dir, m, 0, []int{0, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if all == half {
		t.Fatalf("group 0 of four shards and of two share the alias %s", all)
	}
	again, err := groupAlias(dir, m, 5, []int{0, 1, 2, 3}, nil)
	if err != nil || again != all {
		t.Fatalf("the same group's alias is %s, then %s (%v)", all, again, err)
	}
	text, err := os.ReadFile(all + ".nal")
	if err != nil || !strings.Contains(string(text), "shard-003.db") {
		t.Fatalf("the four-shard alias reads %q (%v)", text, err)
	}
}
