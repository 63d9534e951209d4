// Package manifest describes a sharded BLAST database: what `blastfleet db
// shard` writes as manifest.json and what the engine reads to fetch shards.
package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/blastfleet/blastfleet/internal/objstore"
)

// FileName is the manifest's key under the database prefix.
const FileName = "manifest.json"

// SchemaVersion changes when the layout changes incompatibly.
const SchemaVersion = 1

// DBType is a BLAST database type.
type DBType string

const (
	Nucleotide DBType = "nucl"
	Protein    DBType = "prot"
)

// AliasExt is the alias file extension BLAST uses for the type.
func (t DBType) AliasExt() string {
	if t == Protein {
		return ".pal"
	}
	return ".nal"
}

// Manifest is manifest.json.
type Manifest struct {
	SchemaVersion int     `json:"schemaVersion"`
	Name          string  `json:"name"`
	Type          DBType  `json:"type"`
	BlastVersion  string  `json:"blastVersion"`
	Sequences     int64   `json:"sequences"`
	Letters       int64   `json:"letters"`
	Source        Source  `json:"source"`
	Shards        []Shard `json:"shards"`
	// Ordered: the shards, in id order, hold the database's sequences in
	// its order (each shard a run of consecutive ordinals). An alias
	// listing shards in id order then numbers subjects as the unsharded
	// database does, and BLAST breaks ties (equal E-value and score) by
	// that number, so a search of one shard group needs no re-ordering.
	// Databases built before blastfleet kept the order lack it.
	Ordered bool `json:"ordered,omitempty"`
}

// InOrder reports whether shard groups number subjects in the database's
// order: an ordered database, or one of a single shard.
func (m *Manifest) InOrder() bool { return m.Ordered || len(m.Shards) == 1 }

// Source identifies the input the database was built from, so a re-run with
// the same input can be recognised as a no-op.
type Source struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// Shard is one fragment: a BLAST DB (volume files), an alias file carrying
// the whole database's statistics, and an ids file mapping each sequence to
// its ordinal in the unsharded database.
type Shard struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`    // e.g. shard-007; alias file is Name+AliasExt
	DBName    string `json:"dbName"`  // makeblastdb -out basename, e.g. shard-007.db
	IDsFile   string `json:"idsFile"` // e.g. shard-007.ids: "ordinal\tid" per line in shard OID order
	Sequences int64  `json:"sequences"`
	Letters   int64  `json:"letters"`
	Files     []File `json:"files"`
}

// File is one object of a shard.
type File struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Bytes is the total size of a shard's files.
func (s Shard) Bytes() int64 {
	var n int64
	for _, f := range s.Files {
		n += f.Size
	}
	return n
}

// Validate checks the manifest's internal consistency.
func (m *Manifest) Validate() error {
	if m.SchemaVersion != SchemaVersion {
		return fmt.Errorf("manifest: schemaVersion %d, want %d", m.SchemaVersion, SchemaVersion)
	}
	if m.Type != Nucleotide && m.Type != Protein {
		return fmt.Errorf("manifest: type %q, want nucl or prot", m.Type)
	}
	if len(m.Shards) == 0 {
		return fmt.Errorf("manifest: no shards")
	}
	var seqs, letters int64
	for i, s := range m.Shards {
		if s.ID != i {
			return fmt.Errorf("manifest: shards[%d].id is %d", i, s.ID)
		}
		if len(s.Files) == 0 {
			return fmt.Errorf("manifest: shards[%d] has no files", i)
		}
		seqs += s.Sequences
		letters += s.Letters
	}
	if seqs != m.Sequences || letters != m.Letters {
		return fmt.Errorf("manifest: shards hold %d sequences and %d letters, header says %d and %d",
			seqs, letters, m.Sequences, m.Letters)
	}
	return nil
}

// Load reads and validates manifest.json from a database store.
func Load(ctx context.Context, st objstore.Store) (*Manifest, error) {
	rc, err := st.Get(ctx, FileName)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", st.URL(FileName), err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", st.URL(FileName), err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", st.URL(FileName), err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", st.URL(FileName), err)
	}
	return &m, nil
}

// Save writes manifest.json atomically (the store's Put is atomic).
func Save(ctx context.Context, st objstore.Store, m *Manifest) error {
	if err := m.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := st.Put(ctx, FileName, bytes.NewReader(data), int64(len(data))); err != nil {
		return fmt.Errorf("writing %s: %w", st.URL(FileName), err)
	}
	return nil
}
