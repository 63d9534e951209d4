package blast

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blastdb/blastdbtest"
	"github.com/blastfleet/blastfleet/test/support/synth"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestLongTaxidListAsFile: a taxid list too long for one argument (a
// plan's list may hold any number) reaches BLAST+ as the -taxidlist file,
// and the output is BLAST+'s own with that file.
func TestLongTaxidListAsFile(t *testing.T) {
	testenv.RequireTools(t, "blastp", "makeblastdb")
	dir := t.TempDir()
	db, err := blastdbtest.Build(dir, blastdbtest.Options{Name: "fictnr", Protein: true, Synth: synth.Options{Seed: 5, Families: 6, Members: 4,
		MinLen: 120, MaxLen: 200, Mutation: 0.15, Queries: 4, QueryFrac: 0.5, Unrelated: 3}})
	if err != nil {
		t.Fatal(err)
	}
	// 9001 and 9004 are the database's; 20,000 others are not: far over
	// what one argument may hold.
	ids := []string{"9001"}
	for i := range 20000 {
		ids = append(ids, fmt.Sprint(1000000+i))
	}
	ids = append(ids, "9004")
	for _, tc := range []struct{ inline, file string }{{"taxids", "taxidlist"}, {"negative_taxids", "negative_taxidlist"}} {
		t.Run(tc.inline, func(t *testing.T) {
			opt := Option{Name: tc.inline, Value: strings.Join(ids, ",")}
			if len(opt.Value) < 128<<10 {
				t.Fatalf("the list is %d bytes: the test wants one over Linux's 128 KiB argument limit", len(opt.Value))
			}
			inv := Invocation{Program: Blastp, DB: db.Path(), Query: db.Queries, Format: mustFormat(t, "6 qseqid sseqid evalue bitscore staxids")}
			inv.Options = []Option{opt}
			got, err := Run(context.Background(), inv)
			if err != nil {
				t.Fatal(err)
			}
			// BLAST+ itself with the list file, on the same command line.
			list := filepath.Join(t.TempDir(), "list.txt")
			if err := os.WriteFile(list, []byte(strings.Join(ids, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			inv.Options = []Option{{Name: tc.file, Value: list}}
			argv := inv.Argv()
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = append(os.Environ(), "BLAST_USAGE_REPORT=false")
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %v", argv, err)
			}
			if len(want) == 0 {
				t.Fatal("BLAST+ found nothing: the comparison would prove nothing")
			}
			if !bytes.Equal(got, want) {
				t.Errorf("-%s of %d ids differs from blastp -%s FILE:\n%s\nwant:\n%s", tc.inline, len(ids), tc.file, got, want)
			}
		})
	}
}
