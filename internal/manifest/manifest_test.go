package manifest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/objstore"
)

func sample() *Manifest {
	return &Manifest{SchemaVersion: SchemaVersion, Name: "db", Type: Protein, BlastVersion: "2.12.0+",
		Sequences: 3, Letters: 30, Source: Source{Name: "db.fa", SHA256: "ab", Size: 40},
		Shards: []Shard{
			{ID: 0, Name: "shard-000", DBName: "shard-000.db", IDsFile: "shard-000.ids", Sequences: 2, Letters: 15,
				Files: []File{{Name: "shard-000.pal", Size: 10, SHA256: "x"}, {Name: "shard-000.db.pin", Size: 5, SHA256: "y"}}},
			{ID: 1, Name: "shard-001", DBName: "shard-001.db", IDsFile: "shard-001.ids", Sequences: 1, Letters: 15,
				Files: []File{{Name: "shard-001.pal", Size: 7, SHA256: "z"}}},
		}}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	st, err := objstore.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Load(ctx, st); !errors.Is(err, objstore.ErrNotExist) {
		t.Fatalf("Load of an empty store: %v, want ErrNotExist", err)
	}
	if err := Save(ctx, st, sample()); err != nil {
		t.Fatal(err)
	}
	m, err := Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if m.Shards[0].Bytes() != 15 || m.Type.AliasExt() != ".pal" || Nucleotide.AliasExt() != ".nal" {
		t.Fatalf("loaded %+v", m)
	}
}

func TestValidateNamesTheProblem(t *testing.T) {
	cases := map[string]func(*Manifest){
		"schemaVersion": func(m *Manifest) { m.SchemaVersion = 99 },
		"type":          func(m *Manifest) { m.Type = "rna" },
		"no shards":     func(m *Manifest) { m.Shards = nil },
		"shards[1].id":  func(m *Manifest) { m.Shards[1].ID = 5 },
		"has no files":  func(m *Manifest) { m.Shards[1].Files = nil },
		"header says 4": func(m *Manifest) { m.Sequences = 4 },
	}
	for want, mutate := range cases {
		m := sample()
		mutate(m)
		err := m.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}
