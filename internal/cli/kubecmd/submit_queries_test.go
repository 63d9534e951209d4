package kubecmd

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gz(t *testing.T, data string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tarball writes a tar (gzip when zip) of members, in order; a name
// ending in / is a directory.
func tarball(t *testing.T, path string, zip bool, members ...[2]string) {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, m := range members {
		h := &tar.Header{Name: m[0], Mode: 0o644, Size: int64(len(m[1])), Typeflag: tar.TypeReg}
		if strings.HasSuffix(m[0], "/") {
			h.Typeflag, h.Size, h.Mode = tar.TypeDir, 0, 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	if zip {
		data = gz(t, string(data))
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Several query files and tarballs become one FASTA file, in the order
// given, byte for byte (decompressed), and a bad record is refused
// naming its file and member.
func TestJoinQueries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.fa", []byte(">a1 first\nMKVLAAG\nIVG\n>a2\nMSTNPK")) // no newline at its end
	b := write("b.fa.gz", gz(t, ">b1\nMKKLLPT\n"))
	q := filepath.Join(dir, "q.tar.gz")
	tarball(t, q, true, [2]string{"q/", ""}, [2]string{"q/c.fa", ">c1\nMAAAK\n"}, [2]string{"q/._c.fa", "junk"},
		[2]string{"q/d.fa.gz", string(gz(t, ">d1\nMWWW\n"))})

	out := t.TempDir()
	joined, err := joinQueries(ctx, out, []string{a, b, q}, "blastp")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(joined)
	want := ">a1 first\nMKVLAAG\nIVG\n>a2\nMSTNPK\n>b1\nMKKLLPT\n>c1\nMAAAK\n>d1\nMWWW\n"
	if string(got) != want || filepath.Base(joined) != "queries.fa" {
		t.Errorf("joined %s:\n%q\nwant\n%q", joined, got, want)
	}
	// A tarball alone keeps its name.
	if joined, err := joinQueries(ctx, t.TempDir(), []string{q}, "blastp"); err != nil || filepath.Base(joined) != "q.fa" {
		t.Errorf("a tarball alone: %s, %v", joined, err)
	}

	badMember := filepath.Join(dir, "bad.tar")
	tarball(t, badMember, false, [2]string{"ok.fa", ">o1\nMKV\n"}, [2]string{"x.fa", ">x1\nMK1V\n"})
	empty := filepath.Join(dir, "empty.tgz")
	tarball(t, empty, true, [2]string{"dir/", ""})
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{a, write("c.fa.gz", gz(t, ">c1\nMK*1\n"))}, `c.fa.gz (gunzipped)`},
		{[]string{a, badMember}, `bad.tar: member x.fa`},
		{[]string{a, "s3://in/q.fa"}, "an object in a bucket is one --queries alone"},
		{[]string{a, filepath.Join(dir, "none.fa")}, "none.fa: no such file here"},
		{[]string{empty}, "no FASTA file in it"},
		{[]string{a, write("plain.fa.gz", []byte(">p\nMK\n"))}, "plain.fa.gz: not a gzip stream"},
	} {
		if _, err := joinQueries(ctx, t.TempDir(), tc.files, "blastp"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.files, err, tc.want)
		}
	}
}
