package blastdb

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blastdb/blastdbtest"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

func TestLocation(t *testing.T) {
	for src, want := range map[string][2]string{
		"/data/blastdb/nt":       {"/data/blastdb", "nt"},
		"s3://ncbi/blast/db/nr/": {"s3://ncbi/blast/db", "nr"},
		"swissprot":              {".", "swissprot"},
		"s3://bucket/core_nt":    {"s3://bucket", "core_nt"},
		"rel/dir/refseq_protein": {"rel/dir", "refseq_protein"},
	} {
		where, name, err := Location(src)
		if err != nil || where != want[0] || name != want[1] {
			t.Errorf("Location(%q) = %q, %q, %v; want %q, %q", src, where, name, err, want[0], want[1])
		}
	}
	for _, bad := range []string{"s3://nt", "/data/..", "dir/has space"} {
		if _, _, err := Location(bad); err == nil {
			t.Errorf("Location(%q) accepted", bad)
		}
	}
}

func TestBelongs(t *testing.T) {
	for key, want := range map[string]bool{
		"nt.00.tar.gz": true, "nt.00.tar.gz.md5": true, "nt.nal": true, "nt.ndb": true, "nt.12.nsq": true,
		"nt-nucl-metadata.json": true, "nt.tar.gz": true, "nt.tar.gz.md5": true, "taxdb.tar.gz": true, "taxdb.btd": true,
		"nt_prok.00.tar.gz": false, "ntx.nal": false, "nt.foo.nsq": false, "other.fa": false,
	} {
		if got := belongs(key, "nt"); got != want {
			t.Errorf("belongs(%q, nt) = %v", key, got)
		}
	}
}

func tarGz(t *testing.T, files map[string]string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for name, data := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write([]byte(data))
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

// TestUntar refuses entries that would land outside the directory, and
// a file two archives hold with different bytes.
func TestUntar(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	untar := func(file, dir string) error { return untar(file, dir, unpackLimit(1)) }
	if err := untar(write("a.tar.gz", tarGz(t, map[string]string{"nt.ndb": "x", "nt.00.nsq": "y"})), dir); err != nil {
		t.Fatal(err)
	}
	if err := untar(write("b.tar.gz", tarGz(t, map[string]string{"nt.ndb": "x", "nt.01.nsq": "z"})), dir); err != nil {
		t.Fatalf("the same shared file twice: %v", err)
	}
	if err := untar(write("c.tar.gz", tarGz(t, map[string]string{"nt.ndb": "other"})), dir); err == nil || !strings.Contains(err.Error(), "different nt.ndb") {
		t.Errorf("a different shared file: %v", err)
	}
	if err := untar(write("d.tar.gz", tarGz(t, map[string]string{"../evil": "x"})), dir); err == nil {
		t.Error("an entry outside the directory was unpacked")
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "nt.nal", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"})
	tw.Close()
	zw.Close()
	if err := untar(write("e.tar.gz", b.Bytes()), dir); err == nil || !strings.Contains(err.Error(), "want plain files") {
		t.Errorf("a symlink entry: %v", err)
	}
}

// TestStageRefusesBomb: an archive (with its matching .md5) that would
// unpack far past its size is refused before it fills the disk, naming
// the entry.
func TestStageRefusesBomb(t *testing.T) {
	src := t.TempDir()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	const size = minUnpackLimit + 1<<20
	tw.WriteHeader(&tar.Header{Name: "bomb.00.nsq", Mode: 0o644, Size: size, Typeflag: tar.TypeReg})
	zeros := make([]byte, 1<<20)
	for n := 0; n < size; n += len(zeros) {
		tw.Write(zeros)
	}
	tw.Close()
	zw.Close()
	sum := md5.Sum(b.Bytes())
	for name, data := range map[string][]byte{
		"bomb.00.tar.gz": b.Bytes(), "bomb.00.tar.gz.md5": []byte(hex.EncodeToString(sum[:]) + "  bomb.00.tar.gz\n"),
	} {
		if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	work := t.TempDir()
	_, err = Stage(context.Background(), filepath.Join(src, "bomb"), work, func(string, ...any) {})
	if err == nil || !strings.Contains(err.Error(), "entry bomb.00.nsq") || !strings.Contains(err.Error(), "would unpack the archive past") {
		t.Errorf("Stage of a %d-byte archive unpacking to %d bytes: %v", b.Len(), int64(size), err)
	}
	if fi, err := os.Stat(filepath.Join(work, "blastdb", "bomb.00.nsq")); err == nil {
		t.Errorf("the bomb was unpacked: %d bytes", fi.Size())
	}
	if got := unpackLimit(10 << 30); got != 500<<30 {
		t.Errorf("unpackLimit(10 GiB) = %d", got)
	}
}

// TestStageChecks: metadata that disagrees with the database, or lists
// an archive that is not there, and an archive without its .md5 file.
func TestStageChecks(t *testing.T) {
	if _, err := exec.LookPath("makeblastdb"); err != nil {
		t.Skip("BLAST+ not installed")
	}
	db, err := blastdbtest.Build(t.TempDir(), blastdbtest.Options{Name: "tiny", VolumeMax: 700,
		Synth: synth.Options{Seed: 1, Families: 3, Members: 4, MinLen: 400, MaxLen: 600, Mutation: 0.05, Queries: 1, QueryFrac: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stage := func() (*Database, error) {
		s, err := Stage(ctx, filepath.Join(db.Packed, db.Name), t.TempDir(), func(string, ...any) {})
		if err != nil {
			return nil, err
		}
		return Describe(ctx, s, "")
	}
	d, err := stage()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Volumes) != db.Volumes || len(d.TaxDB) != 2 || len(d.Common) != 5 || d.Sequences != 12 {
		t.Fatalf("described %d volumes (want %d), taxdb %v, common %v, %d sequences", len(d.Volumes), db.Volumes, d.TaxDB, d.Common, d.Sequences)
	}
	// Scan gives every sequence once, in OID order, with its deflines:
	// every fifth record of blastdbtest carries a second (nr's merged entries).
	var oids, merged int64
	err = d.Scan(ctx, func(oid int64, s Seq) error {
		if oid != oids || len(s.IDs) == 0 || len(s.TaxIDs) == 0 || s.Letters < 400 {
			t.Errorf("sequence %d (after %d): %+v", oid, oids, s)
		}
		if len(s.IDs) == 2 && len(s.TaxIDs) == 2 {
			merged++
		}
		oids++
		return nil
	})
	if err != nil || oids != 12 || merged != 2 {
		t.Fatalf("scanned %d sequences, %d merged: %v", oids, merged, err)
	}
	meta := filepath.Join(db.Packed, "tiny-nucl-metadata.json")
	orig, _ := os.ReadFile(meta)
	edit := func(k string, v any) {
		var m map[string]any
		json.Unmarshal(orig, &m)
		m[k] = v
		data, _ := json.Marshal(m)
		os.WriteFile(meta, data, 0o644)
	}
	edit("number-of-sequences", 13)
	if _, err := stage(); err == nil || !strings.Contains(err.Error(), "number-of-sequences 13, the database holds 12") {
		t.Errorf("wrong count in the metadata: %v", err)
	}
	edit("files", []string{"tiny.00.tar.gz", "tiny.99.tar.gz"})
	if _, err := stage(); err == nil || !strings.Contains(err.Error(), "tiny.99.tar.gz, which is not beside it") {
		t.Errorf("metadata listing a missing archive: %v", err)
	}
	os.WriteFile(meta, orig, 0o644)
	os.Remove(filepath.Join(db.Packed, "tiny.01.tar.gz.md5"))
	if _, err := stage(); err == nil || !strings.Contains(err.Error(), "tiny.01.tar.gz has no tiny.01.tar.gz.md5") {
		t.Errorf("archive without .md5: %v", err)
	}
}

// TestSingleVolume: a database of one volume, packed as NCBI packs
// swissprot (NAME.tar.gz), is one volume named NAME.
func TestSingleVolume(t *testing.T) {
	if _, err := exec.LookPath("makeblastdb"); err != nil {
		t.Skip("BLAST+ not installed")
	}
	db, err := blastdbtest.Build(t.TempDir(), blastdbtest.Options{Name: "one", Protein: true,
		Synth: synth.Options{Seed: 2, Families: 2, Members: 3, MinLen: 100, MaxLen: 200, Mutation: 0.1, Queries: 1, QueryFrac: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(db.Packed, "one.tar.gz.md5")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := Stage(ctx, filepath.Join(db.Packed, "one"), t.TempDir(), func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Describe(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Volumes) != 1 || d.Volumes[0].Name != "one" || d.Type != "prot" || len(d.Common) != 5 || len(d.Volumes[0].Files) < 3 {
		t.Fatalf("volumes %+v, type %s, common %v", d.Volumes, d.Type, d.Common)
	}
}

// TestDescribeIgnoresWorkingDirectory: volumes of the same name in the
// working directory (or on BLASTDB) are not read in place of the staged
// ones; BLAST looks there first for an alias file's DBLIST names.
func TestDescribeIgnoresWorkingDirectory(t *testing.T) {
	if _, err := exec.LookPath("makeblastdb"); err != nil {
		t.Skip("BLAST+ not installed")
	}
	build := func(families int) *blastdbtest.DB {
		db, err := blastdbtest.Build(t.TempDir(), blastdbtest.Options{Name: "dup", VolumeMax: 700,
			Synth: synth.Options{Seed: 3, Families: families, Members: 3, MinLen: 400, MaxLen: 600, Mutation: 0.05, Queries: 1, QueryFrac: 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	decoy, db := build(2), build(4)
	t.Chdir(decoy.Original)
	t.Setenv("BLASTDB", decoy.Original)
	ctx := context.Background()
	s, err := Stage(ctx, filepath.Join(db.Packed, "dup"), t.TempDir(), func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Describe(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	if d.Sequences != 12 {
		t.Fatalf("described %d sequences: the decoy's (6) were read, not the staged database's (12)", d.Sequences)
	}
}
