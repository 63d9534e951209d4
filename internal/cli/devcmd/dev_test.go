package devcmd

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestDevWithoutStack(t *testing.T) {
	dir := t.TempDir()
	_, _, err := run(t, "blastfleet", "dev", "status", "--dir", dir)
	if err == nil || !strings.Contains(err.Error(), "no local stack in "+dir) || !strings.Contains(err.Error(), "dev up --dir "+dir) {
		t.Errorf("dev status without a stack: %v", err)
	}
	out, _, err := run(t, "blastfleet", "dev", "down", "--dir", dir)
	if err != nil || !strings.Contains(out, "No local stack runs in "+dir) {
		t.Errorf("dev down without a stack: %q, %v", out, err)
	}
	if _, _, err := run(t, "blastfleet", "dev", "env", "--dir", dir); err == nil {
		t.Error("dev env without a stack succeeded")
	}
}

func TestDevDir(t *testing.T) {
	t.Setenv(devDirEnv, "")
	t.Setenv("XDG_STATE_HOME", "/state")
	o := &devOptions{}
	if d, err := o.resolveDir(); err != nil || d != filepath.Join("/state", "blastfleet", "dev") {
		t.Errorf("default dir %q, %v", d, err)
	}
	t.Setenv(devDirEnv, "/from/env")
	if d, _ := o.resolveDir(); d != "/from/env" {
		t.Errorf("dir from $%s: %q", devDirEnv, d)
	}
	if o.dirArg() != "" {
		t.Errorf("dirArg without --dir: %q", o.dirArg())
	}
	o.dir = "/with space"
	if got := o.dirArg(); got != ` --dir '/with space'` {
		t.Errorf("dirArg: %q", got)
	}
}

func TestDevHelpIsHiddenForServe(t *testing.T) {
	out, _, err := run(t, "blastfleet", "dev", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"up", "down", "status", "env"} {
		if !strings.Contains(out, "  "+want+" ") {
			t.Errorf("dev --help lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "  serve ") {
		t.Errorf("dev --help shows the hidden serve:\n%s", out)
	}
}
