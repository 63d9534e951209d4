package blast

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestRunInDatabaseDirectory: a volume of the same name in the caller's
// working directory is not searched in place of the one beside the alias
// file (BLAST looks in its working directory first).
func TestRunInDatabaseDirectory(t *testing.T) {
	testenv.RequireTools(t, "blastn", "makeblastdb")
	seqA := strings.Repeat("ACGTTGCAAGGCTTAACCGGTAGCATC", 12)
	seqB := strings.Repeat("TTGACCAGTAGCATGCAGGGCATCGAC", 12)
	mkdb := func(dir, id, seq string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		fa := filepath.Join(dir, "in.fa")
		if err := os.WriteFile(fa, []byte(">"+id+"\n"+seq+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("makeblastdb", "-in", fa, "-dbtype", "nucl", "-parse_seqids", "-out", filepath.Join(dir, "vol")).CombinedOutput(); err != nil {
			t.Fatalf("makeblastdb: %v\n%s", err, out)
		}
	}
	root := t.TempDir()
	db, decoy := filepath.Join(root, "db"), filepath.Join(root, "decoy")
	mkdb(db, "right", seqA)
	mkdb(decoy, "decoy", seqA)
	if err := os.WriteFile(filepath.Join(db, "al.nal"), []byte("TITLE t\nDBLIST vol\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(root, "q.fa")
	if err := os.WriteFile(q, []byte(">q\n"+seqA[10:200]+"\n>q2\n"+seqB[:100]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(decoy)
	f, err := ParseFormat("6 qseqid sseqid")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), Invocation{Program: Blastn, DB: filepath.Join(db, "al"), Query: q, Format: f})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "right") || strings.Contains(string(out), "decoy") {
		t.Fatalf("searched the working directory's volume: %q", out)
	}
}
