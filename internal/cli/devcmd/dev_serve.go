package devcmd

import (
	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/devstack"
)

// newDevServeCmd is the supervisor "dev up" starts in the background; it
// runs in the foreground until SIGTERM ("dev down").
func newDevServeCmd() *cobra.Command {
	o := &devOptions{}
	cmd := &cobra.Command{
		Use:    "serve",
		Short:  "Run the local stack's supervisor in the foreground (dev up starts it)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := o.resolveDir()
			if err != nil {
				return err
			}
			cfg, err := devstack.LoadConfig(dir)
			if err != nil {
				return err
			}
			return devstack.Serve(cmd.Context(), cfg)
		},
	}
	o.addFlags(cmd)
	return cmd
}
