package shard

import (
	"context"
	"errors"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// markerProblem says why marker m does not describe shard i of this job's
// build, or "" if it does. Besides the input's identity and the layout it
// compares the alias and ids checksums with the plan's, so a shard balanced
// differently (another blastfleet version, say) is never mixed in.
func (j *job) markerProblem(m *doneMarker, i int) string {
	s := &j.plan.shards[i]
	switch {
	case m.Source.SHA256 != j.src.sha256 || m.Source.Size != j.src.size:
		return fmt.Sprintf("built from another input (%s, sha256 %s; this input has sha256 %s)", m.Source.Name, m.Source.SHA256, j.src.sha256)
	case m.Shards != j.o.Shards:
		return fmt.Sprintf("built as one of %d shards, not %d", m.Shards, j.o.Shards)
	case m.Database != j.o.Name || m.Type != j.o.Type:
		return fmt.Sprintf("built for database %q (%s), not %q (%s)", m.Database, m.Type, j.o.Name, j.o.Type)
	case m.Shard.ID != i || m.Shard.Name != s.names.name || m.Shard.DBName != s.names.db || m.Shard.IDsFile != s.names.ids ||
		m.Shard.Sequences != int64(len(s.ordinals)) || m.Shard.Letters != s.letters:
		return fmt.Sprintf("its marker describes another shard (%s, %d sequences, %d letters; want %s, %d sequences, %d letters)",
			m.Shard.Name, m.Shard.Sequences, m.Shard.Letters, s.names.name, len(s.ordinals), s.letters)
	}
	got := make(map[string]string, len(m.Shard.Files))
	for _, f := range m.Shard.Files {
		got[f.Name] = f.SHA256
	}
	for name, sum := range plannedFiles(s, j.src) {
		if got[name] != sum {
			return fmt.Sprintf("its %s differs from the one this input and shard count give", name)
		}
	}
	return ""
}

// absentFiles returns the names of files missing at the store or stored
// with another size. Sizes, not checksums: re-reading a database to hash
// it would cost as much as fetching it, and markers are deleted before
// their files are overwritten.
func absentFiles(ctx context.Context, st objstore.Store, files []manifest.File) ([]string, error) {
	var absent []string
	for _, f := range files {
		info, err := st.Stat(ctx, f.Name)
		switch {
		case errors.Is(err, objstore.ErrNotExist):
			absent = append(absent, f.Name)
		case err != nil:
			return nil, fmt.Errorf("checking %s: %w", st.URL(f.Name), err)
		case info.Size != f.Size:
			absent = append(absent, fmt.Sprintf("%s (%d bytes, want %d)", f.Name, info.Size, f.Size))
		}
	}
	return absent, nil
}
