package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// savedRun is what -json writes and -from reads back: enough to print the
// report and draw the figures again without running anything.
type savedRun struct {
	Args    []string  `json:"args"` // the command line's flags
	Started time.Time `json:"started"`
	Machine []string  `json:"machine"`
	Points  []*point  `json:"points"`
}

func save(path string, s *savedRun) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("-json: %w", err)
	}
	return nil
}

// load reads a saved run. A run saved before Args and Started were
// recorded was made with the default flags (bench/io.sh); its start is
// taken from the file's time, less nothing: the figures say when the
// numbers were saved.
func load(path string) (*savedRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-from: %w", err)
	}
	var s savedRun
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("-from %s: %w", path, err)
	}
	if s.Started.IsZero() {
		if st, err := os.Stat(path); err == nil {
			s.Started = st.ModTime()
		}
	}
	return &s, nil
}
