package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Replica is another store holding a copy of the database's build.
type Replica struct {
	// Location is as a user writes it (s3://bucket/prefix or an absolute
	// directory), never with credentials: each replica's come from its
	// own variables (objstore.ReplicaRole).
	Location string `json:"location"`
}

// ReplicaLocations lists the recorded replicas' locations in order.
func (m *Manifest) ReplicaLocations() []string {
	locs := make([]string, len(m.Replicas))
	for i, r := range m.Replicas {
		locs[i] = r.Location
	}
	return locs
}

func validReplicas(rs []Replica) error {
	seen := map[string]bool{}
	for i, r := range rs {
		switch {
		case r.Location == "":
			return fmt.Errorf("manifest: replicas[%d] has no location", i)
		case seen[r.Location]:
			return fmt.Errorf("manifest: replicas[%d] %s is listed twice", i, r.Location)
		}
		seen[r.Location] = true
	}
	return nil
}

// maxRecordTries bounds AddReplicas' compare-and-swap loop: each lost
// round means another writer changed manifest.json in between.
const maxRecordTries = 5

// ErrOtherBuild: manifest.json names another build than the one whose
// replicas were to be recorded (the database was rebuilt meanwhile).
var ErrOtherBuild = errors.New("manifest.json names another build")

// AddReplicas records locations among the replicas of the database at st
// in its manifest.json, which must name build (else ErrOtherBuild: the
// replicas hold an older build), by a conditional write, so a rebuild or
// another replication at the same time is never overwritten. Locations
// already recorded are kept once. It returns manifest.json's bytes as
// written (or found, when nothing was new).
func AddReplicas(ctx context.Context, st objstore.Store, build string, locations ...string) ([]byte, error) {
	for try := 0; ; try++ {
		data, etag, err := st.GetBytes(ctx, FileName)
		if err != nil {
			return nil, fmt.Errorf("recording replicas: reading %s: %w", st.URL(FileName), err)
		}
		m, err := parse(data)
		if err != nil {
			return nil, fmt.Errorf("recording replicas: %s: %w", st.URL(FileName), err)
		}
		if m.Build != build {
			return nil, fmt.Errorf("recording replicas of %s: %w (%q)", build, ErrOtherBuild, m.Build)
		}
		added := false
		for _, loc := range locations {
			if !slices.Contains(m.ReplicaLocations(), loc) {
				m.Replicas = append(m.Replicas, Replica{Location: loc})
				added = true
			}
		}
		if !added {
			return data, nil
		}
		next, err := encode(m)
		if err != nil {
			return nil, err
		}
		_, err = st.PutIfMatch(ctx, FileName, next, etag)
		if err == nil {
			return next, nil
		}
		if !errors.Is(err, objstore.ErrPrecondition) || try+1 >= maxRecordTries {
			return nil, fmt.Errorf("recording replicas in %s: %w", st.URL(FileName), err)
		}
	}
}

// parse decodes and validates a manifest's bytes, refusing fields this
// version does not know (as LoadPinned does).
func parse(data []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// encode is the manifest's bytes as Save writes them.
func encode(m *Manifest) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ReplicaNumber is loc's place among the recorded replicas, from 1 (0:
// not recorded): the number of the variables its credentials come from
// (objstore.ReplicaRole), for every reader of the list.
func (m *Manifest) ReplicaNumber(loc string) int {
	return slices.Index(m.ReplicaLocations(), loc) + 1
}
