package manifest

import (
	"fmt"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

// Profiles reports whether the database holds profiles, as makeprofiledb
// builds them for rpsblast and rpstblastn (its volumes' .rps files),
// rather than sequences.
func (m *Manifest) Profiles() bool {
	for _, s := range m.Shards {
		for _, f := range s.Files {
			if strings.HasSuffix(f.Name, ".rps") {
				return true
			}
		}
	}
	return false
}

// CheckProgram refuses a database program p cannot search, naming it as
// where says: another type, or profiles for a program of sequences and
// the reverse.
func (m *Manifest) CheckProgram(p blast.Program, where string) error {
	profiles := m.Profiles()
	switch {
	case string(m.Type) != p.DBType():
		return fmt.Errorf("--program %s searches a %s database, but %s is %s", p, p.DBType(), where, m.Type)
	case p.Profile() && !profiles:
		return fmt.Errorf("--program %s searches a profile database built by makeprofiledb (with .rps files), but %s holds sequences", p, where)
	case !p.Profile() && profiles:
		return fmt.Errorf("--program %s searches sequences, but %s is a profile database (makeprofiledb's): search it with rpsblast or rpstblastn", p, where)
	}
	return nil
}
