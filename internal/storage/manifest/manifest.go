// Package manifest describes a sharded BLAST database: what `blastfleet db
// shard` writes as manifest.json and what the engine reads to fetch shards.
package manifest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
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
	SchemaVersion int    `json:"schemaVersion"`
	Name          string `json:"name"`
	// Title is the title BLAST prints for the database (a prebuilt
	// database's own); empty: Name. Regenerated reports print it.
	Title        string  `json:"title,omitempty"`
	Type         DBType  `json:"type"`
	BlastVersion string  `json:"blastVersion"`
	Sequences    int64   `json:"sequences"`
	Letters      int64   `json:"letters"`
	Source       Source  `json:"source"`
	Shards       []Shard `json:"shards"`
	// Ordered: the shards, in id order, hold the database's sequences in
	// its order (each shard a run of consecutive ordinals). An alias
	// listing shards in id order then numbers subjects as the unsharded
	// database does, and BLAST breaks ties (equal E-value and score) by
	// that number, so a search of one shard group needs no re-ordering.
	// Databases built before blastfleet kept the order lack it.
	Ordered bool `json:"ordered,omitempty"`
	// Build is the folder, under the database's location, that holds this
	// build's shard files and a copy of this manifest (builds/<id>): every
	// build has its own, so rebuilding a database never changes the files
	// a running campaign reads. Empty for databases built before builds
	// were versioned, whose files lie beside manifest.json.
	Build string `json:"build,omitempty"`
	// Common are files every shard needs beside its own, fetched once per
	// worker with the first shard: a prebuilt version 5 database's LMDB
	// indexes (its taxid index serves -taxids) and the taxonomy database
	// taxdb.btd/bti, from which BLAST fills ssciname and the other names.
	Common []File `json:"common,omitempty"`
	// TaxStats names the common file that holds the database's sequences
	// and letters per set of taxids (package taxfilter), from which a
	// search under a taxid filter gets the statistics BLAST computes for
	// it. Empty: the database has no taxid index and refuses taxid filters.
	TaxStats string `json:"taxStats,omitempty"`
	// SeqStats names the common file that holds each sequence's shard,
	// letters and ids (package seqidfilter), from which a search under a
	// sequence id list gets the statistics BLAST computes for it. Empty:
	// the database refuses sequence id lists.
	SeqStats string `json:"seqStats,omitempty"`
	// Replicas are other stores said to hold this build (replicas.go).
	// Only manifest.json records them, never a build's own copy, which
	// campaigns pin by hash: adding a replica must not change it. A
	// replica is read only once CheckReplica accepts it.
	Replicas []Replica `json:"replicas,omitempty"`
}

// HasTaxDB reports whether the database ships BLAST's taxonomy database.
func (m *Manifest) HasTaxDB() bool {
	n := 0
	for _, f := range m.Common {
		if f.Name == "taxdb.btd" || f.Name == "taxdb.bti" {
			n++
		}
	}
	return n == 2
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
	// Date is makeblastdb's date in the shard's volume ("Nov 26, 2026
	// 4:59 AM"): regenerated reports print the newest as the database's.
	Date string `json:"date,omitempty"`
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

// BuildsDir holds one folder per build of a database.
const BuildsDir = "builds"

var buildRe = regexp.MustCompile(`^` + BuildsDir + `/[0-9a-z][0-9a-z-]*$`)

// Key is where this build's own copy of the manifest lives, relative to
// the database's location: the one a campaign pins.
func (m *Manifest) Key() string {
	if m.Build == "" {
		return FileName
	}
	return m.Build + "/" + FileName
}

// Files is the store holding this build's shard files, given the
// database's store.
func (m *Manifest) Files(db objstore.Store) (objstore.Store, error) {
	if m.Build == "" {
		return db, nil
	}
	return objstore.Prefixed(db, m.Build)
}

// nameRe is a name the manifest gives a database, a shard or a file: one
// path component of a safe charset, as cache paths, alias files and BLAST's
// -db take them. It starts with no '.', so neither "..", a hidden file nor
// the cache's own ".fetch-" files.
var nameRe = regexp.MustCompile(`^[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,199}$`)

// CheckName says whether name may be a manifest's name of a database,
// shard or file: manifests come from stores others may write, and these
// names become paths on the readers' disks.
func CheckName(name string) error {
	if !nameRe.MatchString(name) || strings.Contains(name, "..") {
		return fmt.Errorf("%q: want one file name of letters, digits, '.', '_', '+' or '-' (at most 200, not starting with '.', no \"..\")", name)
	}
	return nil
}

// checkNames checks every name of m that becomes a path, naming the field.
func (m *Manifest) checkNames() error {
	if err := CheckName(m.Name); err != nil {
		return fmt.Errorf("manifest: name %w", err)
	}
	for _, f := range m.Common {
		if err := CheckName(f.Name); err != nil {
			return fmt.Errorf("manifest: common file name %w", err)
		}
	}
	for i, s := range m.Shards {
		for _, n := range []struct{ field, value string }{{"name", s.Name}, {"idsFile", s.IDsFile}} {
			if err := CheckName(n.value); err != nil {
				return fmt.Errorf("manifest: shards[%d].%s %w", i, n.field, err)
			}
		}
		// A prebuilt database's shard lists its volumes, space-separated,
		// as BLAST's -db takes them.
		for _, v := range strings.Split(s.DBName, " ") {
			if err := CheckName(v); err != nil {
				return fmt.Errorf("manifest: shards[%d].dbName %q: volume %w", i, s.DBName, err)
			}
		}
		for j, f := range s.Files {
			if err := CheckName(f.Name); err != nil {
				return fmt.Errorf("manifest: shards[%d].files[%d].name %w", i, j, err)
			}
		}
	}
	return nil
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
	if m.Build != "" && !buildRe.MatchString(m.Build) {
		return fmt.Errorf("manifest: build %q is not a folder %s/<id>", m.Build, BuildsDir)
	}
	if err := m.checkNames(); err != nil {
		return err
	}
	if err := checkTitle(m.Title); err != nil {
		return err
	}
	names := map[string]string{}
	for _, f := range m.Common {
		names[f.Name] = "common"
	}
	if m.TaxStats != "" && names[m.TaxStats] == "" {
		return fmt.Errorf("manifest: taxStats %q is not among the common files", m.TaxStats)
	}
	if m.SeqStats != "" && names[m.SeqStats] == "" {
		return fmt.Errorf("manifest: seqStats %q is not among the common files", m.SeqStats)
	}
	if err := validReplicas(m.Replicas); err != nil {
		return err
	}
	for i, f := range m.Common {
		if f.Size < 0 {
			return fmt.Errorf("manifest: common[%d] size %d is negative", i, f.Size)
		}
	}
	var seqs, letters int64
	for i, s := range m.Shards {
		for j, f := range s.Files {
			if names[f.Name] == "common" {
				return fmt.Errorf("manifest: shards[%d] file %s is a common file too", i, f.Name)
			}
			// Sizes size the cache and the workers' memory: a negative
			// one would hide the rest of the database from both.
			if f.Size < 0 {
				return fmt.Errorf("manifest: shards[%d].files[%d] size %d is negative", i, j, f.Size)
			}
		}
		if s.Sequences < 0 || s.Letters < 0 {
			return fmt.Errorf("manifest: shards[%d] has %d sequences and %d letters: counts must not be negative", i, s.Sequences, s.Letters)
		}
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

// ErrChanged: the manifest a campaign was planned against is gone or
// holds other bytes; searching what is there now would mix databases.
var ErrChanged = errors.New("the database is not the one the campaign was planned against")

// Load reads and validates the database's current manifest.json.
func Load(ctx context.Context, st objstore.Store) (*Manifest, error) {
	m, _, err := LoadPinned(ctx, st, FileName, "")
	return m, err
}

// LoadCurrent reads the database's current build's manifest from that
// build's own copy, which no later build rewrites (manifest.json only
// names the current build), and returns it with its SHA-256: what a
// campaign pins.
func LoadCurrent(ctx context.Context, st objstore.Store) (*Manifest, string, error) {
	m, sum, err := LoadPinned(ctx, st, FileName, "")
	if err != nil || m.Build == "" {
		return m, sum, err
	}
	return LoadPinned(ctx, st, m.Key(), "")
}

// LoadPinned reads and validates the manifest at key. With sum set it must
// have exactly that SHA-256 (a campaign's plan pins it), or the error
// matches ErrChanged. It returns the manifest's SHA-256.
func LoadPinned(ctx context.Context, st objstore.Store, key, sum string) (*Manifest, string, error) {
	data, _, err := st.GetBytes(ctx, key)
	if errors.Is(err, objstore.ErrNotExist) && sum != "" {
		return nil, "", fmt.Errorf("%w: %s is gone (was the build deleted?): %w", ErrChanged, st.URL(key), err)
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", st.URL(key), err)
	}
	h := sha256.Sum256(data)
	got := hex.EncodeToString(h[:])
	if sum != "" && got != sum {
		return nil, "", fmt.Errorf("%w: %s has SHA-256 %s, the plan says %s (rebuilt in place, or edited, since planning)", ErrChanged, st.URL(key), got, sum)
	}
	m, err := parse(data)
	if err != nil {
		return nil, "", fmt.Errorf("parsing %s: %w", st.URL(key), err)
	}
	if key != m.Key() && key != FileName {
		return nil, "", fmt.Errorf("%s: the manifest belongs to %s, not here", st.URL(key), m.Key())
	}
	return m, got, nil
}

// Save writes the manifest atomically (the store's Put is atomic): first
// the build's own copy, then manifest.json, which makes it the database's
// current build. Both hold the same bytes.
func Save(ctx context.Context, st objstore.Store, m *Manifest) error {
	data, err := encode(m)
	if err != nil {
		return err
	}
	keys := []string{FileName}
	if m.Build != "" {
		keys = []string{m.Key(), FileName}
	}
	for _, key := range keys {
		if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
			return fmt.Errorf("writing %s: %w", st.URL(key), err)
		}
	}
	return nil
}

// maxTitleBytes bounds a database's title: BLAST prints it in reports,
// and it goes into alias files and error messages.
const maxTitleBytes = 4096

// checkTitle refuses a title that is too long or holds a control
// character: it is written as the TITLE line of alias files, where a
// newline would add lines of the manifest writer's choosing (a DBLIST of
// any path on the worker).
func checkTitle(t string) error {
	if len(t) > maxTitleBytes {
		return fmt.Errorf("manifest: title has %d bytes, at most %d", len(t), maxTitleBytes)
	}
	if i := strings.IndexFunc(t, unicode.IsControl); i >= 0 {
		return fmt.Errorf("manifest: title holds a control character (%q at byte %d)", t[i:i+1], i)
	}
	return nil
}
