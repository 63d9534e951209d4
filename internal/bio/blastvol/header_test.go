package blastvol

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeDB builds a one-sequence database with real makeblastdb.
func makeDB(t *testing.T, dbtype, title, version string) string {
	t.Helper()
	if _, err := exec.LookPath("makeblastdb"); err != nil {
		t.Skip("makeblastdb not installed")
	}
	dir := t.TempDir()
	seq := "ACGTACGTACGTAAACCCGGGTTT"
	if dbtype == "prot" {
		seq = "MTMDKSELVQKAKLAEQAERYDDM"
	}
	fa := filepath.Join(dir, "in.fa")
	if err := os.WriteFile(fa, []byte(">s1 one\n"+seq+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("makeblastdb", "-in", fa, "-dbtype", dbtype, "-parse_seqids", "-title", title,
		"-blastdb_version", version, "-out", filepath.Join(dir, "db")).CombinedOutput()
	if err != nil {
		t.Fatalf("makeblastdb: %v: %s", err, out)
	}
	return dir
}

func info(t *testing.T, db string) string {
	out, err := exec.Command("blastdbcmd", "-db", db, "-info").CombinedOutput()
	if err != nil {
		t.Fatalf("blastdbcmd: %v: %s", err, out)
	}
	return string(out)
}

func TestSetDateBLASTReadsIt(t *testing.T) {
	for _, c := range []struct{ dbtype, ext, title, version string }{
		{"nucl", ".nin", "nuc title", "5"}, {"prot", ".pin", "tursiops", "5"}, {"nucl", ".nin", "t", "4"},
		{"prot", ".pin", "a longer title of seventeen", "4"},
	} {
		dir := makeDB(t, c.dbtype, c.title, c.version)
		idx := filepath.Join(dir, "db"+c.ext)
		h, err := ReadHeader(idx)
		if err != nil {
			t.Fatal(err)
		}
		if h.Title != c.title || h.Version != int(c.version[0]-'0') || h.Protein != (c.dbtype == "prot") {
			t.Fatalf("%+v: header %+v", c, h)
		}
		if !strings.Contains(info(t, filepath.Join(dir, "db")), "Date: "+h.Date+"\t") {
			t.Fatalf("blastdbcmd -info does not show date %q", h.Date)
		}
		// Dates of every length BLAST writes, and back.
		for _, d := range []string{"Jan 1, 2020  1:02 AM", "Dec 31, 2019  11:59 PM", "May 05, 2021  10:00 AM", h.Date} {
			if err := SetDate(idx, d); err != nil {
				t.Fatal(err)
			}
			got, err := ReadHeader(idx)
			if err != nil || got.Date != d || got.Title != c.title {
				t.Fatalf("after SetDate(%q): %+v, %v", d, got, err)
			}
			out := info(t, filepath.Join(dir, "db"))
			if !strings.Contains(out, "Date: "+d+"\t") || !strings.Contains(out, "1 sequences") {
				t.Fatalf("blastdbcmd -info after SetDate(%q):\n%s", d, out)
			}
			// The sequence still reads back.
			seq, err := exec.Command("blastdbcmd", "-db", filepath.Join(dir, "db"), "-entry", "s1").CombinedOutput()
			if err != nil || !strings.Contains(string(seq), ">s1 one") {
				t.Fatalf("blastdbcmd -entry s1 after SetDate: %v: %s", err, seq)
			}
		}
	}
}

func TestParseRefusesOtherFiles(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("hello world, not an index"), {0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 99}} {
		if _, err := Parse(b); err == nil {
			t.Fatalf("Parse(%q) accepted it", b)
		}
	}
}
