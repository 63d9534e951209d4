package devstack

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := Config{Dir: dir, CLI: "/bin/blastfleet", LedgerPollInterval: Duration(3 * time.Second), MaxLifetime: Duration(15 * time.Minute),
		Env: []string{"PATH=/x"}, WatchPID: 42}
	if err := writeJSON(paths{dir}.config(), &in, 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(paths{dir}.config())
	if !strings.Contains(string(b), `"ledgerPollInterval": "3s"`) {
		t.Errorf("durations should read as Go durations:\n%s", b)
	}
	out, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if out.LedgerPollInterval.D() != 3*time.Second || out.MaxLifetime.D() != 15*time.Minute || out.WatchPID != 42 || out.Bucket != "blastfleet" || out.Namespace != "default" {
		t.Errorf("read back %+v", out)
	}
}

func TestDownWithoutStack(t *testing.T) {
	dir := t.TempDir()
	rep, err := Down(context.Background(), dir, false, time.Second, io.Discard)
	if err != nil || rep.WasRunning || len(rep.Killed) > 0 {
		t.Fatalf("down of an empty dir: %+v, %v", rep, err)
	}
	if _, err := ReadState(dir); !errors.Is(err, ErrNoStack) {
		t.Fatalf("ReadState of an empty dir: %v", err)
	}
	// --purge removes only a stack's directory.
	keep := filepath.Join(dir, "precious")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Down(context.Background(), dir, true, time.Second, io.Discard); err == nil {
		t.Fatal("purge removed a directory that is no stack's")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatal(err)
	}
}
