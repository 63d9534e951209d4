package manifest

import (
	"context"
	"errors"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// ErrReplica is matched by every error of CheckReplica: the replica lacks
// or differs from the build, and must not be read.
var ErrReplica = errors.New("replica refused")

// CheckReplica says whether replica (a replica's root store, as the
// database's own) holds primary's build: its copy of the build's manifest
// must name the same build with the same files, sizes and SHA-256s. It
// compares manifests only, hashing no shard: a replica writes its
// manifest after every file checked out, and readers hash what they
// fetch. The error names the replica and the first difference.
func CheckReplica(ctx context.Context, primary *Manifest, replica objstore.Store) error {
	where := replica.URL("")
	if primary.Build == "" {
		// Unversioned: its manifest.json changes in place, so no copy
		// can be said to hold the same build for long.
		return fmt.Errorf("%w: replica %s: the database's build is not versioned (built before builds/<id>; shard it again)", ErrReplica, where)
	}
	got, _, err := LoadPinned(ctx, replica, primary.Key(), "")
	if errors.Is(err, objstore.ErrNotExist) {
		return fmt.Errorf("%w: replica %s lacks build %s (no %s): %w", ErrReplica, where, primary.Build, replica.URL(primary.Key()), err)
	}
	if err != nil {
		return fmt.Errorf("%w: replica %s: %w", ErrReplica, where, err)
	}
	if d := firstDifference(primary, got); d != "" {
		return fmt.Errorf("%w: replica %s differs from build %s: %s", ErrReplica, where, primary.Build, d)
	}
	return nil
}

// firstDifference describes the first way b's build differs from a's, or
// is "" when they hold the same files.
func firstDifference(a, b *Manifest) string {
	switch {
	case a.Build != b.Build:
		return fmt.Sprintf("build %q, the primary's is %q", b.Build, a.Build)
	case a.Name != b.Name || a.Type != b.Type:
		return fmt.Sprintf("database %s (%s), the primary's is %s (%s)", b.Name, b.Type, a.Name, a.Type)
	case a.Sequences != b.Sequences || a.Letters != b.Letters:
		return fmt.Sprintf("%d sequences and %d letters, the primary's %d and %d", b.Sequences, b.Letters, a.Sequences, a.Letters)
	case len(a.Shards) != len(b.Shards):
		return fmt.Sprintf("%d shards, the primary's %d", len(b.Shards), len(a.Shards))
	case a.TaxStats != b.TaxStats:
		return fmt.Sprintf("taxStats %q, the primary's %q", b.TaxStats, a.TaxStats)
	}
	if d := filesDifference("common files", a.Common, b.Common); d != "" {
		return d
	}
	for i := range a.Shards {
		sa, sb := a.Shards[i], b.Shards[i]
		if sa.Name != sb.Name || sa.DBName != sb.DBName || sa.Sequences != sb.Sequences || sa.Letters != sb.Letters {
			return fmt.Sprintf("shard %d is %s (%d sequences), the primary's %s (%d)", i, sb.Name, sb.Sequences, sa.Name, sa.Sequences)
		}
		if d := filesDifference("shard "+sa.Name, sa.Files, sb.Files); d != "" {
			return d
		}
	}
	return ""
}

func filesDifference(what string, a, b []File) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%s: %d files, the primary's %d", what, len(b), len(a))
	}
	for i := range a {
		fa, fb := a[i], b[i]
		switch {
		case fa.Name != fb.Name:
			return fmt.Sprintf("%s: file %d is %s, the primary's %s", what, i, fb.Name, fa.Name)
		case fa.Size != fb.Size:
			return fmt.Sprintf("%s: file %s has %d bytes, the primary's %d", what, fa.Name, fb.Size, fa.Size)
		case fa.SHA256 != fb.SHA256:
			return fmt.Sprintf("%s: file %s has SHA-256 %s, the primary's %s", what, fa.Name, fb.SHA256, fa.SHA256)
		}
	}
	return ""
}
