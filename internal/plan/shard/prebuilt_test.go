package shard

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blastdb/blastdbtest"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// prebuiltDB builds a small NCBI-style database of several volumes.
func prebuiltDB(t *testing.T, protein bool) *blastdbtest.DB { return prebuiltDBOf(t, protein, false) }

// prebuiltDBOf builds it of several volumes, or of one as makeblastdb's
// default volume size gives most labs' own databases.
func prebuiltDBOf(t *testing.T, protein, oneVolume bool) *blastdbtest.DB {
	t.Helper()
	requireBLAST(t, "makeblastdb", "blastdbcmd")
	o := blastdbtest.Options{Name: "fictnt", VolumeMax: 2200, Masks: true, Synth: synth.Options{Seed: 3, Families: 6, Members: 5,
		MinLen: 600, MaxLen: 900, Mutation: 0.02, Queries: 8, QueryFrac: 0.3, Unrelated: 4, Duplicates: 3}}
	if protein {
		o.Name, o.Protein, o.VolumeMax = "fictnr", true, 3000
		o.Synth.MinLen, o.Synth.MaxLen, o.Synth.Mutation = 200, 320, 0.1
	}
	if oneVolume {
		o.VolumeMax = 0
	}
	db, err := blastdbtest.Build(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	if oneVolume {
		if db.Volumes != 1 {
			t.Fatalf("%d volumes: the test wants one", db.Volumes)
		}
		return db
	}
	if db.Volumes < 3 {
		t.Fatalf("%d volumes: the test wants several", db.Volumes)
	}
	return db
}

// TestBlastDBShardsEqualOriginal shards a packed prebuilt database along
// its volumes and checks that searching each shard's alias finds exactly
// the unsharded database's hits, E-values and taxonomy columns included;
// a database of one volume is rebuilt in smaller volumes first, and keeps
// the same.
func TestBlastDBShardsEqualOriginal(t *testing.T) {
	for _, tc := range []struct {
		protein   bool
		program   string
		oneVolume bool
		shards    int
	}{{false, "blastn", false, 2}, {true, "blastp", false, 2}, {false, "blastn", true, 3}, {true, "blastp", true, 3}} {
		name := tc.program
		if tc.oneVolume {
			name += "/one-volume"
		}
		t.Run(name, func(t *testing.T) {
			db := prebuiltDBOf(t, tc.protein, tc.oneVolume)
			st, dir := newStore(t)
			m, err := BuildFromBlastDB(context.Background(), Options{BlastDB: filepath.Join(db.Packed, db.Name), Shards: tc.shards, Output: st})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Shards) != tc.shards || !m.HasTaxDB() || m.TaxStats == "" || m.SeqStats == "" || len(m.Common) < 5 {
				t.Fatalf("manifest: %d shards, taxdb %v, taxStats %q, seqStats %q, %d common files", len(m.Shards), m.HasTaxDB(), m.TaxStats, m.SeqStats, len(m.Common))
			}
			const cols = "6 qseqid sseqid evalue bitscore staxid ssciname scomname sblastname sskingdom staxids stitle"
			want := blastLines(t, tc.program, db.Path(), db.Queries, cols, db.Original)
			var got []string
			for _, s := range m.Shards {
				got = append(got, blastLines(t, tc.program, filepath.Join(dir, m.Build, s.Name), db.Queries, cols, filepath.Join(dir, m.Build))...)
			}
			slices.Sort(want)
			slices.Sort(got)
			if len(want) < 20 || !strings.Contains(strings.Join(want, "\n"), "Fictus") {
				t.Fatalf("%d hits, taxonomy names missing? %v", len(want), want)
			}
			if !slices.Equal(got, want) {
				t.Errorf("sharded hits differ from the original database's\nsharded:\n%s\noriginal:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// Nothing is lost, in the original order: every defline's
			// accession, title and taxid, every length, mask and sequence.
			entries := "%a|%t|%T|%l|%m11|%s"
			if tc.protein {
				entries = "%a|%t|%T|%l|%m21|%s"
			}
			orig := dbEntries(t, db.Path(), entries)
			var sharded []string
			for _, s := range m.Shards {
				sharded = append(sharded, dbEntries(t, filepath.Join(dir, m.Build, s.Name), entries)...)
			}
			if !slices.Equal(sharded, orig) {
				t.Errorf("the shards' entries differ from the original's:\nsharded:\n%s\noriginal:\n%s", strings.Join(sharded, "\n"), strings.Join(orig, "\n"))
			}
			if masked := strings.Count(strings.Join(orig, "\n"), ";"); masked < 5 {
				t.Errorf("only %d masked regions: the fixture should have masks to carry", masked)
			}
			// The title, the masking algorithms and the date BLAST prints.
			want0 := dbInfo(t, db.Path())
			for _, s := range m.Shards {
				if got := dbInfo(t, filepath.Join(dir, m.Build, s.Name)); got != want0 {
					t.Errorf("shard %s: -info says\n%s\nthe original\n%s", s.Name, got, want0)
				}
			}
			// Re-running over the same source is a no-op.
			again, err := BuildFromBlastDB(context.Background(), Options{BlastDB: filepath.Join(db.Packed, db.Name), Shards: tc.shards, Output: st})
			if err != nil || again.Build != m.Build {
				t.Fatalf("re-run: %v, build %q then %q", err, m.Build, again.Build)
			}
		})
	}
}

// dbInfo is what blastdbcmd -info says of a database that shards keep:
// its date and masking algorithms.
func dbInfo(t *testing.T, db string) string {
	t.Helper()
	out, err := exec.Command("blastdbcmd", "-db", db, "-info").Output()
	if err != nil {
		t.Fatalf("blastdbcmd -db %s -info: %v", db, err)
	}
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Date:") {
			date, _, _ := strings.Cut(l, "\t")
			keep = append(keep, date)
		}
		if f := strings.Fields(l); len(f) >= 2 && (f[1] == "dust" || f[1] == "seg") {
			keep = append(keep, strings.Join(f, " "))
		}
	}
	return strings.Join(keep, "\n")
}

func dbEntries(t *testing.T, db, outfmt string) []string {
	t.Helper()
	out, err := exec.Command("blastdbcmd", "-db", db, "-entry", "all", "-outfmt", outfmt).Output()
	if err != nil {
		t.Fatalf("blastdbcmd -db %s: %v", db, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func blastLines(t *testing.T, program, db, queries, outfmt, blastdb string) []string {
	t.Helper()
	cmd := exec.Command(program, "-db", db, "-query", queries, "-outfmt", outfmt, "-max_target_seqs", "500")
	cmd.Env = append(os.Environ(), "BLASTDB="+blastdb, "BLAST_USAGE_REPORT=false", "BATCH_SIZE=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestBlastDBRefusesCorruptArchive: an archive whose MD5 differs from its
// .md5 file is refused, named, before anything is written.
func TestBlastDBRefusesCorruptArchive(t *testing.T) {
	db := prebuiltDB(t, false)
	archive := filepath.Join(db.Packed, db.Name+".01.tar.gz")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := newStore(t)
	_, err = BuildFromBlastDB(context.Background(), Options{BlastDB: filepath.Join(db.Packed, db.Name), Shards: 2, Output: st})
	if err == nil || !strings.Contains(err.Error(), db.Name+".01.tar.gz is corrupt") {
		t.Fatalf("corrupt archive: %v", err)
	}
	if st.puts.Load() != 0 {
		t.Errorf("%d objects written before the archive was refused", st.puts.Load())
	}
}

// TestBlastDBShardCount: a type that differs, or more shards than
// sequences, is refused with the count.
func TestBlastDBShardCount(t *testing.T) {
	db := prebuiltDB(t, false)
	st, _ := newStore(t)
	_, err := BuildFromBlastDB(context.Background(), Options{BlastDB: filepath.Join(db.Original, db.Name), Shards: 50, Output: st, Type: manifest.Protein})
	if err == nil || !strings.Contains(err.Error(), "is a nucl database") {
		t.Fatalf("wrong type: %v", err)
	}
	_, err = BuildFromBlastDB(context.Background(), Options{BlastDB: filepath.Join(db.Original, db.Name), Shards: 50, Output: st})
	if err == nil || !strings.Contains(err.Error(), "50 shards for") {
		t.Fatalf("too many shards: %v", err)
	}
}
