package shard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// markerVersion changes when doneMarker changes incompatibly.
const markerVersion = 1

// doneMarker records that one shard's files are complete at the output and
// which build they belong to. It is written after the shard's files and
// deleted before they are overwritten, so a marker present means the files
// it lists are the ones its build uploaded. Finish assembles manifest.json
// from the markers of a sharded build's separate index runs.
type doneMarker struct {
	SchemaVersion int             `json:"schemaVersion"`
	Database      string          `json:"database"`
	Type          manifest.DBType `json:"type"`
	Shards        int             `json:"shards"` // the build's shard count
	Source        manifest.Source `json:"source"`
	Sequences     int64           `json:"sequences"` // of the whole database
	Letters       int64           `json:"letters"`
	BlastVersion  string          `json:"blastVersion"`
	Shard         manifest.Shard  `json:"shard"` // as it goes into the manifest
}

// markerKey is where shard name's marker lives, beside the flat shard files.
func markerKey(name string) string { return "shards/" + name + ".done.json" }

// readMarker returns the shard's marker; a missing one gives ErrNotExist.
func readMarker(ctx context.Context, st objstore.Store, name string) (*doneMarker, error) {
	key := markerKey(name)
	data, _, err := st.GetBytes(ctx, key)
	if err != nil {
		return nil, err // names the key already
	}
	var m doneMarker
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", st.URL(key), err)
	}
	if m.SchemaVersion != markerVersion {
		return nil, fmt.Errorf("%s: schemaVersion %d, want %d", st.URL(key), m.SchemaVersion, markerVersion)
	}
	return &m, nil
}

func writeMarker(ctx context.Context, st objstore.Store, m *doneMarker) error {
	key := markerKey(m.Shard.Name)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", key, err)
	}
	data = append(data, '\n')
	if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		return fmt.Errorf("writing %s: %w", st.URL(key), err)
	}
	return nil
}

func deleteMarker(ctx context.Context, st objstore.Store, name string) error {
	key := markerKey(name)
	if err := st.Delete(ctx, key); err != nil && !errors.Is(err, objstore.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", st.URL(key), err)
	}
	return nil
}
