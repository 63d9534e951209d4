// Package taxdb reads and writes BLAST's taxonomy database, the pair of
// files taxdb.bti (index) and taxdb.btd (names) from which BLAST+ fills the
// ssciname, scomname, sblastname and sskingdom columns for a subject's
// taxid. BLAST looks for them in the current directory and on BLASTDB, not
// beside the database.
//
// The layout, as the NCBI C++ toolkit's seqdbtax.cpp reads it (all
// integers big-endian, 4 bytes):
//
//	taxdb.bti: magic 0x8739, count, 4 reserved words, then count entries
//	           (taxid, offset into taxdb.btd), sorted by taxid
//	taxdb.btd: per taxid "scientific\tcommon\tblast name\tkingdom", back to
//	           back; an entry ends where the next one starts (the last at
//	           the end of the file)
package taxdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// IndexFile and DataFile are the names BLAST looks for.
const (
	IndexFile = "taxdb.bti"
	DataFile  = "taxdb.btd"
)

const magic = 0x8739

// headerBytes is magic, count and the four reserved words.
const headerBytes = 6 * 4

// Taxon is one taxid's names as BLAST prints them.
type Taxon struct {
	TaxID      int32
	Scientific string
	Common     string
	BlastName  string
	Kingdom    string
}

// Encode returns the index and data files for taxa, sorted by taxid.
func Encode(taxa []Taxon) (index, data []byte, err error) {
	sorted := slices.Clone(taxa)
	slices.SortFunc(sorted, func(a, b Taxon) int { return int(a.TaxID) - int(b.TaxID) })
	var d bytes.Buffer
	idx := make([]byte, headerBytes, headerBytes+8*len(sorted))
	binary.BigEndian.PutUint32(idx[0:], magic)
	binary.BigEndian.PutUint32(idx[4:], uint32(len(sorted)))
	for i, t := range sorted {
		if i > 0 && sorted[i-1].TaxID == t.TaxID {
			return nil, nil, fmt.Errorf("taxid %d given twice", t.TaxID)
		}
		if t.TaxID <= 0 {
			return nil, nil, fmt.Errorf("taxid %d: must be positive", t.TaxID)
		}
		fields := []string{t.Scientific, t.Common, t.BlastName, t.Kingdom}
		for _, f := range fields {
			if strings.ContainsAny(f, "\t\x00") {
				return nil, nil, fmt.Errorf("taxid %d: name %q holds a tab or NUL", t.TaxID, f)
			}
		}
		// BLAST drops an entry whose kingdom is empty.
		if t.Kingdom == "" {
			return nil, nil, fmt.Errorf("taxid %d: empty kingdom (BLAST ignores such an entry)", t.TaxID)
		}
		idx = binary.BigEndian.AppendUint32(idx, uint32(t.TaxID))
		idx = binary.BigEndian.AppendUint32(idx, uint32(d.Len()))
		d.WriteString(strings.Join(fields, "\t"))
	}
	return idx, d.Bytes(), nil
}

// Write writes taxdb.bti and taxdb.btd into dir.
func Write(dir string, taxa []Taxon) error {
	idx, data, err := Encode(taxa)
	if err != nil {
		return fmt.Errorf("taxdb: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, DataFile), data, 0o644); err != nil {
		return fmt.Errorf("taxdb: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), idx, 0o644); err != nil {
		return fmt.Errorf("taxdb: %w", err)
	}
	return nil
}

// Decode parses an index and data file pair, checking what BLAST checks
// (magic, count against the file's size) and that offsets rise.
func Decode(index, data []byte) ([]Taxon, error) {
	if len(index) < headerBytes {
		return nil, fmt.Errorf("%s: %d bytes, shorter than its header", IndexFile, len(index))
	}
	if m := binary.BigEndian.Uint32(index); m != magic {
		return nil, fmt.Errorf("%s: magic number %#x, want %#x", IndexFile, m, magic)
	}
	n := int(binary.BigEndian.Uint32(index[4:]))
	if (len(index)-headerBytes)/8 != n || (len(index)-headerBytes)%8 != 0 {
		return nil, fmt.Errorf("%s: header says %d taxids, the file has room for %d", IndexFile, n, (len(index)-headerBytes)/8)
	}
	taxa := make([]Taxon, n)
	for i := range taxa {
		e := index[headerBytes+8*i:]
		id, start := int32(binary.BigEndian.Uint32(e)), int(binary.BigEndian.Uint32(e[4:]))
		end := len(data)
		if i+1 < n {
			end = int(binary.BigEndian.Uint32(e[12:]))
		}
		if start > end || end > len(data) {
			return nil, fmt.Errorf("%s: taxid %d's names at bytes %d..%d of %s (%d bytes)", IndexFile, id, start, end, DataFile, len(data))
		}
		if i > 0 && taxa[i-1].TaxID >= id {
			return nil, fmt.Errorf("%s: taxid %d after %d: not sorted", IndexFile, id, taxa[i-1].TaxID)
		}
		f := strings.SplitN(string(data[start:end]), "\t", 4)
		if len(f) != 4 {
			return nil, fmt.Errorf("%s: taxid %d: %q has %d tab-separated names, want 4", DataFile, id, data[start:end], len(f))
		}
		taxa[i] = Taxon{TaxID: id, Scientific: f[0], Common: f[1], BlastName: f[2], Kingdom: f[3]}
	}
	return taxa, nil
}

// Read reads taxdb.bti and taxdb.btd from dir.
func Read(dir string) ([]Taxon, error) {
	idx, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		return nil, fmt.Errorf("taxdb: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, DataFile))
	if err != nil {
		return nil, fmt.Errorf("taxdb: %w", err)
	}
	taxa, err := Decode(idx, data)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("taxdb in %s", dir), err)
	}
	return taxa, nil
}
