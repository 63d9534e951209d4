// Package devcmd is blastfleet-dev's commands ("blastfleet dev" runs
// it): up, down, status and env run and show the local stack
// (internal/devstack), and the hidden serve is the process up starts.
package devcmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli/devexec"
)

// devDirEnv overrides the default directory of the local stack.
const devDirEnv = "BLASTFLEET_DEV_DIR"

// devOptions are the flags every dev command shares.
type devOptions struct {
	dir string
}

func (o *devOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.dir, "dir", "", "the stack's directory: state, kubeconfig, data and logs (default $"+devDirEnv+", else $XDG_STATE_HOME/blastfleet/dev, i.e. ~/.local/state/blastfleet/dev)")
}

// resolveDir is the stack's directory, absolute.
func (o *devOptions) resolveDir() (string, error) {
	d := o.dir
	if d == "" {
		d = os.Getenv(devDirEnv)
	}
	if d == "" {
		state := os.Getenv("XDG_STATE_HOME")
		if state == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("no --dir and no home directory: %w", err)
			}
			state = filepath.Join(home, ".local", "state")
		}
		d = filepath.Join(state, "blastfleet", "dev")
	}
	return filepath.Abs(d)
}

// dirArg is " --dir DIR" when the commands we suggest need it.
func (o *devOptions) dirArg() string {
	if o.dir == "" {
		return ""
	}
	d, err := o.resolveDir()
	if err != nil {
		return ""
	}
	return " --dir " + shellQuote(d)
}

// NewRoot is blastfleet-dev's root command: the dev commands.
func NewRoot() *cobra.Command {
	cmd := New()
	cmd.Use = devexec.Binary
	cmd.SilenceErrors = true // main prints the error once
	cmd.PersistentPreRun = func(c *cobra.Command, _ []string) { c.SilenceUsage = true }
	return cmd
}

// caller is how the user runs the CLI, for the commands we suggest:
// blastfleet dev passes it (devexec.CallerEnv); a test tree's root is the
// CLI itself.
func caller(cmd *cobra.Command) string {
	if root := cmd.Root(); root.Name() != devexec.Binary {
		return root.CommandPath()
	}
	if c := os.Getenv(devexec.CallerEnv); c != "" {
		return c
	}
	return "blastfleet"
}

// New groups the dev commands, which run the local stack.
func New() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run the whole product on this machine: API server, MinIO, Prometheus, operator",
		Long: `A local stack for trying blastfleet and for its end-to-end tests, on
127.0.0.1 only and without containers: etcd and kube-apiserver with the
blastfleet and MPIJob CRDs, a MinIO server with a bucket and the
minio-credentials Secret, Prometheus, the operator, and the local runner,
which runs MPIJobs and Jobs as local processes (mpirun of
blastfleet-engine) where a cluster would run pods.

"dev up" starts it in the background and writes a kubeconfig, so kubectl
and every blastfleet command work against it; "dev status" says what runs
where; "dev down" stops it all. See docs/development.md.`,
		Example: `  blastfleet dev up
  export KUBECONFIG=~/.local/state/blastfleet/dev/kubeconfig
  kubectl apply -f campaign.yaml && blastfleet status my-campaign --watch
  blastfleet dev down`,
	}
	cmd.AddCommand(newDevUpCmd(), newDevDownCmd(), newDevStatusCmd(), newDevEnvCmd(), newDevServeCmd())
	return cmd
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '/' || r == '.' || r == '_' || r == '-' || r == ':' || r == '=' || r == '+' || r == ',' || r == '@') {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}
