package localrunner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Names of the programs the operator's pods run, as in the worker image.
const (
	mpirunName = "mpirun"
	engineName = "blastfleet-engine"
	cliName    = "blastfleet"
)

// binDir makes a directory of links named as in the worker image
// (mpirun, blastfleet-engine, blastfleet) to the configured programs. It
// goes first on every process's PATH, so names inside arguments, like the
// engine that mpirun starts, resolve the same way as the command itself.
func makeBinDir(dir string, programs map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bin directory: %w", err)
	}
	for name, target := range programs {
		link := filepath.Join(dir, name)
		_ = os.Remove(link) // a link from an earlier run's options
		if target == "" {
			continue // found on PATH, if anywhere
		}
		abs, err := filepath.Abs(target)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := os.Symlink(abs, link); err != nil {
			return fmt.Errorf("linking %s: %w", name, err)
		}
	}
	return nil
}

// resolveCommand finds argv0 on pathList (a PATH value). Image paths of
// the known programs (/usr/bin/mpirun) resolve by their base name, since
// the image's file system is not here.
func resolveCommand(argv0, pathList string) (string, error) {
	name := argv0
	if base := filepath.Base(argv0); base == mpirunName || base == engineName || base == cliName {
		name = base
	}
	if strings.Contains(name, "/") {
		if isExecutable(name) {
			return name, nil
		}
		return "", fmt.Errorf("%s: not an executable file here", name)
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH %s", name, pathList)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// withOversubscribe lets mpirun start more ranks than this machine has
// cores: the launcher passes -np workers×slots, meant for many nodes.
func withOversubscribe(args []string) []string {
	if slices.Contains(args, "--oversubscribe") || slices.Contains(args, "-oversubscribe") {
		return args
	}
	return append([]string{"--oversubscribe"}, args...)
}
