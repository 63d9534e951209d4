package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
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
		"schemaVersion":                          func(m *Manifest) { m.SchemaVersion = 99 },
		"type":                                   func(m *Manifest) { m.Type = "rna" },
		"no shards":                              func(m *Manifest) { m.Shards = nil },
		"shards[1].id":                           func(m *Manifest) { m.Shards[1].ID = 5 },
		"has no files":                           func(m *Manifest) { m.Shards[1].Files = nil },
		"header says 4":                          func(m *Manifest) { m.Sequences = 4 },
		"shards[0].files[1] size -5 is negative": func(m *Manifest) { m.Shards[0].Files[1].Size = -5 },
		"common[0] size -1 is negative":          func(m *Manifest) { m.Common = []File{{Name: "taxdb.btd", Size: -1, SHA256: "c"}} },
		"shards[1] has -1 sequences":             func(m *Manifest) { m.Shards[1].Sequences, m.Sequences = -1, 1 },
		// The title is the TITLE line of alias files: a newline would add
		// a DBLIST of the writer's choosing.
		"title holds a control character": func(m *Manifest) { m.Title = "nt\nDBLIST /etc/passwd" },
		"title has 4097 bytes":            func(m *Manifest) { m.Title = strings.Repeat("t", 4097) },
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

// Names in a manifest become paths (cache files, alias files, BLAST's -db)
// on every reader's disk: a manifest naming anything but one plain file
// name is refused on loading, the error naming the field and record.
func TestLoadRefusesHostileNames(t *testing.T) {
	ctx := context.Background()
	for want, mutate := range map[string]func(*Manifest){
		"manifest: name":              func(m *Manifest) { m.Name = "../../etc" },
		"manifest: name ":             func(m *Manifest) { m.Name = "nt\nINFO forged log line" },
		"shards[1].name":              func(m *Manifest) { m.Shards[1].Name = "../../x" },
		"shards[0].dbName":            func(m *Manifest) { m.Shards[0].DBName = "/etc/passwd" },
		"shards[1].idsFile":           func(m *Manifest) { m.Shards[1].IDsFile = "sub/shard-001.ids" },
		"shards[0].files[1].name":     func(m *Manifest) { m.Shards[0].Files[1].Name = ".." },
		"shards[1].files[0].name":     func(m *Manifest) { m.Shards[1].Files[0].Name = ".fetch-x" },
		"common file name":            func(m *Manifest) { m.Common = []File{{Name: "tax\x00db.btd", Size: 1, SHA256: "c"}} },
		"shards[0].files[0].name ":    func(m *Manifest) { m.Shards[0].Files[0].Name = strings.Repeat("a", 201) },
		"shards[0].files[0].name  ":   func(m *Manifest) { m.Shards[0].Files[0].Name = "a..b" },
		"shards[1].files[0].name    ": func(m *Manifest) { m.Shards[1].Files[0].Name = "" },
	} {
		st, err := objstore.NewDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		m := sample()
		mutate(m)
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		// Written raw, as whoever can write the database's store would.
		if err := st.Put(ctx, FileName, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		want = strings.TrimSpace(want)
		if _, err := Load(ctx, st); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Load err = %v, want one naming it", want, err)
		}
		if err := Save(ctx, st, m); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Save err = %v, want one naming it", want, err)
		}
	}
	// Ordinary names pass.
	if err := CheckName("nt.00.tar.gz"); err != nil {
		t.Error(err)
	}
	m := sample()
	m.Shards[1].DBName = "nt.01 nt.02" // a prebuilt shard's volumes
	if err := m.Validate(); err != nil {
		t.Error(err)
	}
	m.Shards[1].DBName = "nt.01 ../x"
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "shards[1].dbName") {
		t.Errorf("a volume outside: %v", err)
	}
}
