package shard

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

func buildOpts(input string, st objstore.Store, shards int) Options {
	return Options{Input: input, Type: manifest.Nucleotide, Shards: shards, Output: st}
}

func readInput(t *testing.T, path string, a fasta.Alphabet) []*fasta.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := fasta.ReadAll(f, path, a)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestBuild(t *testing.T) {
	requireBLAST(t, "blastdbcmd")
	ctx := context.Background()
	input, _ := synthetic(t, 1, "ACGT", 12, 5, 20)
	recs := readInput(t, input, fasta.Nucleotide)
	st, dir := newStore(t)
	var progress bytes.Buffer
	opts := buildOpts(input, st, 3)
	opts.Progress = &progress
	m, err := Build(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("progress:\n%s", progress.String())

	loaded, err := manifest.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded, m) {
		t.Errorf("saved manifest differs from returned one")
	}
	var total, longest int64
	for _, r := range recs {
		total += int64(len(r.Seq))
		longest = max(longest, int64(len(r.Seq)))
	}
	raw, _ := os.ReadFile(input)
	sum := sha256.Sum256(raw)
	if m.Name != "synth" || m.Sequences != int64(len(recs)) || m.Letters != total || !strings.HasSuffix(m.BlastVersion, "+") ||
		m.Source != (manifest.Source{Name: "synth.fa", SHA256: hex.EncodeToString(sum[:]), Size: int64(len(raw))}) {
		t.Errorf("manifest header = %+v", m)
	}

	// Balance by letters.
	var lo, hi int64 = m.Shards[0].Letters, m.Shards[0].Letters
	for _, s := range m.Shards {
		lo, hi = min(lo, s.Letters), max(hi, s.Letters)
	}
	if hi-lo > longest {
		t.Errorf("shard letters spread %d..%d exceeds the longest sequence %d", lo, hi, longest)
	}

	seen := make([]int, len(recs))
	for _, s := range m.Shards {
		names := namesFor(s.ID, 3, "synth", manifest.Nucleotide)
		if s.Name != names.name || s.DBName != names.db || s.IDsFile != names.ids {
			t.Errorf("shard %d names = %+v", s.ID, s)
		}
		// Files: what makeblastdb wrote, the alias and ids files, each
		// stored with the listed size and checksum; never the FASTA.
		var fileNames []string
		for _, f := range s.Files {
			fileNames = append(fileNames, f.Name)
			data, err := os.ReadFile(filepath.Join(dir, m.Build, f.Name))
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.Sum256(data)
			if int64(len(data)) != f.Size || hex.EncodeToString(h[:]) != f.SHA256 {
				t.Errorf("%s: stored size/sha differ from manifest", f.Name)
			}
		}
		for _, want := range []string{names.alias, names.ids, names.db + ".nsq", names.db + ".nin", names.db + ".nhr"} {
			if !slices.Contains(fileNames, want) {
				t.Errorf("shard %d files %v lack %s", s.ID, fileNames, want)
			}
		}
		if slices.Contains(fileNames, names.fasta) {
			t.Errorf("shard %d uploads its FASTA", s.ID)
		}

		alias, _ := os.ReadFile(filepath.Join(dir, m.Build, names.alias))
		wantAlias := "TITLE synth shard " + strconv.Itoa(s.ID) + "\nDBLIST " + names.db +
			"\nSTATS_NSEQ " + strconv.Itoa(len(recs)) + "\nSTATS_TOTLEN " + strconv.FormatInt(total, 10) + "\n"
		if string(alias) != wantAlias {
			t.Errorf("alias file %s:\n%s\nwant:\n%s", names.alias, alias, wantAlias)
		}

		// ids: ascending ordinals, matching the input, and matching the
		// BLAST DB's own OID order.
		idsData, _ := os.ReadFile(filepath.Join(dir, m.Build, names.ids))
		lines := strings.Split(strings.TrimSuffix(string(idsData), "\n"), "\n")
		if int64(len(lines)) != s.Sequences {
			t.Errorf("%s has %d lines, shard has %d sequences", names.ids, len(lines), s.Sequences)
		}
		prev := -1
		var letters int64
		var ids []string
		for _, line := range lines {
			ordStr, id, _ := strings.Cut(line, "\t")
			ord, err := strconv.Atoi(ordStr)
			if err != nil || ord <= prev || ord >= len(recs) || recs[ord].ID != id {
				t.Fatalf("%s: bad line %q after ordinal %d", names.ids, line, prev)
			}
			prev = ord
			seen[ord]++
			letters += int64(len(recs[ord].Seq))
			ids = append(ids, id)
		}
		if letters != s.Letters {
			t.Errorf("shard %d letters %d, its sequences hold %d", s.ID, s.Letters, letters)
		}
		out, err := exec.Command("blastdbcmd", "-db", filepath.Join(dir, m.Build, names.db), "-entry", "all", "-outfmt", "%a").Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Fields(string(out)); !slices.Equal(got, ids) {
			t.Errorf("shard %d OID order %v, ids file %v", s.ID, got, ids)
		}
	}
	for ord, n := range seen {
		if n != 1 {
			t.Errorf("ordinal %d appears in %d shards", ord, n)
		}
	}

	// Same input, same options: a no-op that writes nothing.
	st.puts.Store(0)
	again, err := Build(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.puts.Load(); n != 0 {
		t.Errorf("re-run made %d Puts, want none", n)
	}
	if !reflect.DeepEqual(again, m) {
		t.Errorf("re-run returned a different manifest")
	}

	// A missing shard file makes the re-run rebuild.
	if err := st.Delete(ctx, m.Build+"/"+m.Shards[1].Files[0].Name); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if st.puts.Load() == 0 {
		t.Errorf("re-run after losing a shard file wrote nothing")
	}
}

func TestBuildOtherSource(t *testing.T) {
	requireBLAST(t)
	ctx := context.Background()
	first, _ := synthetic(t, 1, "ACGT", 3, 3, 3)
	second, _ := synthetic(t, 2, "ACGT", 3, 3, 3)
	st, dir := newStore(t)
	if _, err := Build(ctx, buildOpts(first, st, 3)); err != nil {
		t.Fatal(err)
	}
	st.puts.Store(0)
	_, err := Build(ctx, buildOpts(second, st, 2))
	if err == nil || !strings.Contains(err.Error(), "not from this input") || !strings.Contains(err.Error(), "force") {
		t.Fatalf("err = %v, want a refusal mentioning force", err)
	}
	if n := st.puts.Load(); n != 0 {
		t.Errorf("refused build made %d Puts", n)
	}
	old, err := manifest.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	opts := buildOpts(second, st, 2)
	opts.Force = true
	m, err := Build(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Shards) != 2 || m.Build == old.Build {
		t.Fatalf("%d shards in build %s (the old one was %s)", len(m.Shards), m.Build, old.Build)
	}
	// The old build stays whole for the campaigns pinning it: its own
	// manifest and every file.
	requireBuild(t, st, old)
	requireBuild(t, st, m)
	if cur, err := manifest.Load(ctx, st); err != nil || cur.Build != m.Build {
		t.Errorf("manifest.json names build %v (%v), want %s", cur, err, m.Build)
	}
	if _, err := os.Stat(filepath.Join(dir, "shard-000.db.nsq")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("shard files outside the build folders: %v", err)
	}
}

// A forced rebuild of the very same database goes to a folder of its own:
// the build a campaign pinned is never overwritten.
func TestBuildForcedKeepsPinnedBuild(t *testing.T) {
	requireBLAST(t)
	ctx := context.Background()
	input, _ := synthetic(t, 4, "ACGT", 2, 2, 2)
	st, _ := newStore(t)
	first, err := Build(ctx, buildOpts(input, st, 2))
	if err != nil {
		t.Fatal(err)
	}
	_, sum, err := manifest.LoadCurrent(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	opts := buildOpts(input, st, 2)
	opts.Force = true
	second, err := Build(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if second.Build == first.Build {
		t.Fatalf("forced rebuild reused build folder %s", first.Build)
	}
	if _, _, err := manifest.LoadPinned(ctx, st, first.Key(), sum); err != nil {
		t.Errorf("the first build's pinned manifest: %v", err)
	}
	requireBuild(t, st, first)
	if _, _, err := manifest.LoadPinned(ctx, st, manifest.FileName, sum); !errors.Is(err, manifest.ErrChanged) {
		t.Errorf("manifest.json after the rebuild still matches the first build's hash (%v)", err)
	}
}

// A database built before builds were versioned (files beside
// manifest.json) is replaced by a versioned build, and its flat files,
// which no manifest names any more, are deleted.
func TestBuildReplacesUnversioned(t *testing.T) {
	requireBLAST(t)
	ctx := context.Background()
	first, _ := synthetic(t, 5, "ACGT", 2, 2, 2)
	second, _ := synthetic(t, 6, "ACGT", 2, 2, 2)
	st, dir := newStore(t)
	m, err := Build(ctx, buildOpts(first, st, 2))
	if err != nil {
		t.Fatal(err)
	}
	// Lay it out as before: files flat, the manifest without a build.
	var flat []string
	for _, s := range m.Shards {
		for _, f := range s.Files {
			if err := os.Rename(filepath.Join(dir, m.Build, f.Name), filepath.Join(dir, f.Name)); err != nil {
				t.Fatal(err)
			}
			flat = append(flat, f.Name)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, manifest.BuildsDir)); err != nil {
		t.Fatal(err)
	}
	m.Build = ""
	if err := manifest.Save(ctx, st, m); err != nil {
		t.Fatal(err)
	}
	opts := buildOpts(second, st, 2)
	opts.Force = true
	n, err := Build(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	requireBuild(t, st, n)
	for _, name := range flat {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("unversioned file %s left: %v", name, err)
		}
	}
}

// requireBuild checks that m's build folder holds its manifest and every
// file it lists, with the listed size.
func requireBuild(t *testing.T, st objstore.Store, m *manifest.Manifest) {
	t.Helper()
	ctx := context.Background()
	if _, _, err := manifest.LoadPinned(ctx, st, m.Key(), ""); err != nil {
		t.Errorf("build %s: %v", m.Build, err)
	}
	files, err := m.Files(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Shards {
		if absent, err := absentFiles(ctx, files, s.Files); err != nil || len(absent) > 0 {
			t.Errorf("build %s, %s: missing %v (%v)", m.Build, s.Name, absent, err)
		}
	}
}

func TestBuildFailuresWriteNoManifest(t *testing.T) {
	requireBLAST(t)
	ctx := context.Background()
	good, _ := synthetic(t, 3, "ACGT", 2, 3, 4)
	for _, tc := range []struct {
		name  string
		input func(t *testing.T) string
		path  string // PATH override
		want  []string
	}{
		{
			name: "makeblastdb rejects an id",
			input: func(t *testing.T) string {
				p := filepath.Join(t.TempDir(), "badid.fa")
				data := ">ok1\nACGTACGTTGCA\n>x|y|z|w|v\nACGTTTGACCA\n>ok2\nTTTTGGGGCCCCAAAA\n"
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			},
			want: []string{"makeblastdb for shard-", "Could not construct seq-id"},
		},
		{
			name:  "makeblastdb missing",
			input: func(*testing.T) string { return good },
			path:  "empty",
			want:  []string{"makeblastdb", "PATH"},
		},
		{
			name: "invalid FASTA",
			input: func(t *testing.T) string {
				p := filepath.Join(t.TempDir(), "bad.fa")
				if err := os.WriteFile(p, []byte(">a\nACGT\n>b\nACGJ\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			},
			want: []string{"bad.fa:4:", `record "b"`, "'J'"},
		},
		{
			name:  "more shards than sequences",
			input: func(*testing.T) string { return good },
			want:  []string{"cannot be empty"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path != "" {
				t.Setenv("PATH", t.TempDir())
			}
			st, _ := newStore(t)
			shards := 3
			if strings.Contains(tc.name, "more shards") {
				shards = 100
			}
			_, err := Build(ctx, buildOpts(tc.input(t), st, shards))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := st.Stat(ctx, manifest.FileName); !errors.Is(err, objstore.ErrNotExist) {
				t.Errorf("manifest after failure: %v", err)
			}
			// Validation and makeblastdb run before any upload.
			if n := st.puts.Load(); n != 0 {
				t.Errorf("%d Puts after failure, want none", n)
			}
		})
	}
}

func TestBuildOptionErrors(t *testing.T) {
	st, _ := newStore(t)
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Input: "x.fa", Type: "dna", Shards: 1, Output: st}, `"dna"`},
		{Options{Input: "x.fa", Type: manifest.Nucleotide, Shards: 0, Output: st}, "at least 1"},
		{Options{Input: "x.fa", Type: manifest.Nucleotide, Shards: 1}, "output"},
		{Options{Input: "x.fa", Type: manifest.Nucleotide, Shards: 1, Output: st, Name: "a\nb"}, "control"},
	} {
		if _, err := Build(context.Background(), tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%+v) = %v, want error with %q", tc.opts, err, tc.want)
		}
	}
}

func TestBuildGzipInput(t *testing.T) {
	requireBLAST(t)
	input, _ := synthetic(t, 4, "ACGT", 2, 2, 2)
	raw, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(raw)
	zw.Close()
	gzPath := filepath.Join(t.TempDir(), "synth.fasta.gz")
	if err := os.WriteFile(gzPath, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := newStore(t)
	m, err := Build(context.Background(), buildOpts(gzPath, st, 2))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(zb.Bytes())
	if m.Name != "synth" || m.Sequences != 6 || m.Source.Name != "synth.fasta.gz" ||
		m.Source.SHA256 != hex.EncodeToString(sum[:]) || m.Source.Size != int64(zb.Len()) {
		t.Errorf("manifest = %+v", m)
	}
}
