// Package devexec is the CLI's "dev" command: it runs blastfleet-dev,
// the local stack's own binary, so the user CLI links neither the stack
// nor the local runner (a stand-in kubelet) and stays what runs against
// real clusters.
package devexec

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// Binary is the local stack's program, built beside the CLI by make build.
const Binary = "blastfleet-dev"

// CallerEnv tells blastfleet-dev how the user ran it ("blastfleet",
// "kubectl blastfleet"), for the commands it suggests.
const CallerEnv = "BLASTFLEET_DEV_CALLER"

// New is "dev": every argument and flag goes to blastfleet-dev as given.
func New() *cobra.Command {
	return &cobra.Command{
		Use:   "dev",
		Short: "Run the whole product on this machine: API server, MinIO, Prometheus, operator",
		Long: `A local stack for trying blastfleet and for its end-to-end tests (dev up,
status, env, down). It is its own program, ` + Binary + `, which make build
builds beside this one; "blastfleet dev ARGS" runs "` + Binary + ` ARGS".
See docs/development.md.`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := Find()
			if err != nil {
				return err
			}
			env := append(os.Environ(), CallerEnv+"="+cmd.Root().CommandPath())
			// Replaced, not a child: signals, the terminal and the exit
			// code are blastfleet-dev's own.
			return syscall.Exec(path, append([]string{Binary}, args...), env)
		},
	}
}

// Find is blastfleet-dev beside this executable (bin/ after make build),
// else on PATH.
func Find() (string, error) {
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		p := filepath.Join(filepath.Dir(self), Binary)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(Binary)
	if errors.Is(err, exec.ErrNotFound) {
		return "", fmt.Errorf("the local stack is the program %s, found neither beside this one nor on PATH (make build builds it into bin/)", Binary)
	}
	return p, err
}
