package testenv

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BuildDir is the folder of a sharded database directory's current build,
// where its shard files are (read without package manifest, which the
// store's own tests below this package cannot import).
func BuildDir(t testing.TB, db string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(db, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Build string `json:"build"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s/manifest.json: %v", db, err)
	}
	return filepath.Join(db, filepath.FromSlash(m.Build))
}
