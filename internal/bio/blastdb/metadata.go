package blastdb

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Metadata is the NCBI NAME-<type>-metadata.json (format 1.1) published
// beside a database's archives; what Describe finds is checked against it.
type Metadata struct {
	DBName    string   `json:"dbname"`
	Version   string   `json:"version"`
	DBType    string   `json:"dbtype"` // "Nucleotide" or "Protein"
	Sequences int64    `json:"number-of-sequences"`
	Letters   int64    `json:"number-of-letters"`
	Volumes   int      `json:"number-of-volumes"`
	Files     []string `json:"files"`
	File      string   `json:"-"`
}

func (s *Staged) readMetadata(keys []string) error {
	i := slices.IndexFunc(keys, func(k string) bool { return strings.HasSuffix(k, "-metadata.json") })
	if i < 0 {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(s.Dir, keys[i]))
	if err != nil {
		return fmt.Errorf("reading %s: %w", keys[i], err)
	}
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("parsing %s: %w", keys[i], err)
	}
	m.File = keys[i]
	if m.DBName != "" && m.DBName != s.Name {
		return fmt.Errorf("%s: dbname %q, the database is %q", keys[i], m.DBName, s.Name)
	}
	// Every archive it lists must be here: a partial download is refused.
	for _, f := range m.Files {
		if base := path.Base(f); !slices.Contains(keys, base) {
			return fmt.Errorf("%s: files lists %s, which is not beside it (partial download?)", keys[i], base)
		}
	}
	s.Metadata = &m
	return nil
}

// check compares the metadata's counts with the database's.
func (m *Metadata) check(d *Database) error {
	want := map[string]string{"Nucleotide": "nucl", "Protein": "prot"}[m.DBType]
	switch {
	case m.DBType != "" && want != string(d.Type):
		return fmt.Errorf("%s: dbtype %q, the database is %s", m.File, m.DBType, d.Type)
	case m.Sequences != 0 && m.Sequences != d.Sequences:
		return fmt.Errorf("%s: number-of-sequences %d, the database holds %d", m.File, m.Sequences, d.Sequences)
	case m.Letters != 0 && m.Letters != d.Letters:
		return fmt.Errorf("%s: number-of-letters %d, the database holds %d", m.File, m.Letters, d.Letters)
	case m.Volumes != 0 && m.Volumes != len(d.Volumes):
		return fmt.Errorf("%s: number-of-volumes %d, the database has %d", m.File, m.Volumes, len(d.Volumes))
	}
	return nil
}
