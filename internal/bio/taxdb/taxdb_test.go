package taxdb

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var fiction = []Taxon{
	{1003, "Archaeum falsum", "false archaeon", "archaea", "Archaea"},
	{1000, "Fictus primus", "first fiction", "fictions", "Eukaryota"},
	{1001, "Fictus secundus", "second fiction", "fictions", "Eukaryota"},
	{1002, "Bacillus imaginarius", "", "firmicutes", "Bacteria"},
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, fiction); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Taxon{fiction[1], fiction[2], fiction[3], fiction[0]}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
}

func TestEncodeRefuses(t *testing.T) {
	for name, taxa := range map[string][]Taxon{
		"duplicate": {fiction[0], fiction[0]},
		"tab":       {{TaxID: 5, Scientific: "a\tb", Kingdom: "K"}},
		"kingdom":   {{TaxID: 5, Scientific: "a"}},
		"zero":      {{TaxID: 0, Scientific: "a", Kingdom: "K"}},
	} {
		if _, _, err := Encode(taxa); err == nil {
			t.Errorf("%s: encoded without error", name)
		}
	}
	idx, data, _ := Encode(fiction)
	idx[3] ^= 1
	if _, err := Decode(idx, data); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("bad magic: %v", err)
	}
}

// TestBLASTReadsIt is the format's proof: BLAST+ itself fills the taxonomy
// columns from files Write made, found through BLASTDB.
func TestBLASTReadsIt(t *testing.T) {
	if _, err := exec.LookPath("makeblastdb"); err != nil {
		if os.Getenv("BLASTFLEET_REQUIRE_REAL") != "" {
			t.Fatal("makeblastdb not on PATH")
		}
		t.Skip("BLAST+ not installed")
	}
	dir := t.TempDir()
	seq := strings.Repeat("ACGTTGCAAGGCTTAACCGGTA", 20)
	fa := ">AB000001.1 one\n" + seq + "\n>AB000002.1 two\n" + seq[5:] + "\n>AB000003.1 three\n" + seq[9:] + "\n"
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in, tmap, q := write("db.fa", fa), write("tax.map", "AB000001.1 1000\nAB000002.1 1002\nAB000003.1 4242\n"), write("q.fa", ">q\n"+seq[20:300]+"\n")
	db := filepath.Join(dir, "db")
	if out, err := exec.Command("makeblastdb", "-in", in, "-dbtype", "nucl", "-parse_seqids", "-taxid_map", tmap, "-out", db).CombinedOutput(); err != nil {
		t.Fatalf("makeblastdb: %v\n%s", err, out)
	}
	taxdir := filepath.Join(dir, "tax")
	if err := os.Mkdir(taxdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(taxdir, fiction); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("blastn", "-db", db, "-query", q, "-outfmt", "6 sseqid staxid ssciname scomname sblastname sskingdom")
	cmd.Env = append(os.Environ(), "BLASTDB="+taxdir, "BLAST_USAGE_REPORT=false")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("blastn: %v", err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		id, rest, _ := strings.Cut(l, "\t")
		got[id] = rest
	}
	want := map[string]string{
		"dbj|AB000001.1|": "1000\tFictus primus\tfirst fiction\tfictions\tEukaryota",
		"dbj|AB000002.1|": "1002\tBacillus imaginarius\tN/A\tfirmicutes\tBacteria",
		"dbj|AB000003.1|": "4242\tN/A\tN/A\tN/A\tN/A", // a taxid the taxdb lacks; an empty name prints N/A too
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("BLAST printed\n%q\nwant\n%q", got, want)
	}
}
