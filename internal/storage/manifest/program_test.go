package manifest

import (
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

func TestCheckProgram(t *testing.T) {
	shard := func(files ...string) Shard {
		s := Shard{Name: "shard-000"}
		for _, f := range files {
			s.Files = append(s.Files, File{Name: f})
		}
		return s
	}
	seqs := &Manifest{Type: Protein, Shards: []Shard{shard("db.pin", "db.psq"), shard("db2.pin")}}
	profiles := &Manifest{Type: Protein, Shards: []Shard{shard("cdd.pin", "cdd.rps", "cdd.loo", "cdd.aux")}}
	nucl := &Manifest{Type: Nucleotide, Shards: []Shard{shard("nt.nin")}}
	for _, c := range []struct {
		m    *Manifest
		p    blast.Program
		want string // "" for accepted
	}{
		{seqs, blast.Blastp, ""},
		{seqs, blast.Psiblast, ""},
		{profiles, blast.Rpsblast, ""},
		{profiles, blast.Rpstblastn, ""},
		{nucl, blast.Blastn, ""},
		{seqs, blast.Rpsblast, "searches a profile database built by makeprofiledb"},
		{profiles, blast.Blastp, "is a profile database"},
		{profiles, blast.Psiblast, "is a profile database"},
		{nucl, blast.Rpstblastn, "searches a prot database, but db is nucl"},
	} {
		err := c.m.CheckProgram(c.p, "db")
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s on %v: %v, want %q", c.p, c.m.Shards[0].Files, err, c.want)
		}
	}
}
