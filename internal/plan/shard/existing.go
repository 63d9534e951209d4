package shard

import (
	"context"
	"errors"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// existing looks at what the output already holds. It returns the old
// manifest (nil if none) and whether it is exactly what this build would
// produce, in which case building again is a no-op.
func existing(ctx context.Context, o *Options, src *source) (old *manifest.Manifest, done bool, err error) {
	if _, err := o.Output.Stat(ctx, manifest.FileName); errors.Is(err, objstore.ErrNotExist) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("checking for %s: %w", o.Output.URL(manifest.FileName), err)
	}
	old, err = manifest.Load(ctx, o.Output)
	if err != nil {
		if o.Force {
			o.Log.Info("ignoring unreadable existing manifest (--force)", "error", err.Error())
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("output already holds a manifest that cannot be used (use --force to overwrite it): %w", err)
	}
	if old.Source.SHA256 != src.sha256 && !o.Force {
		return nil, false, fmt.Errorf("%s already holds database %q built from %s (sha256 %s), not from this input (sha256 %s); use --force to overwrite it",
			o.Output.URL(manifest.FileName), old.Name, old.Source.Name, old.Source.SHA256, src.sha256)
	}
	if o.Force || old.Source.SHA256 != src.sha256 || old.Type != o.Type || len(old.Shards) != o.Shards || old.Name != o.Name {
		return old, false, nil
	}
	files, err := old.Files(o.Output)
	if err != nil {
		return nil, false, err
	}
	for _, s := range old.Shards {
		for _, f := range s.Files {
			info, err := files.Stat(ctx, f.Name)
			if errors.Is(err, objstore.ErrNotExist) || (err == nil && info.Size != f.Size) {
				o.Log.Info("existing database is incomplete, rebuilding", "file", files.URL(f.Name))
				return old, false, nil
			}
			if err != nil {
				return nil, false, fmt.Errorf("checking %s: %w", files.URL(f.Name), err)
			}
		}
	}
	return old, true, nil
}
