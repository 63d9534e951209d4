package devcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/devstack"
)

func newDevEnvCmd() *cobra.Command {
	o := &devOptions{}
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print shell exports for the local stack: KUBECONFIG and MinIO's AWS_* variables",
		Long: `Print export lines that point kubectl, blastfleet and S3 tools at the local
stack: KUBECONFIG, and AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION
and AWS_ENDPOINT_URL for its MinIO (what "blastfleet results" and
"blastfleet db shard" read).`,
		Example: `  eval "$(blastfleet dev env)"
  kubectl get bsc`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := o.resolveDir()
			if err != nil {
				return err
			}
			st, err := devstack.ReadState(dir)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, kv := range [][2]string{
				{"KUBECONFIG", st.Kubeconfig},
				{"AWS_ACCESS_KEY_ID", st.MinIO.AccessKey},
				{"AWS_SECRET_ACCESS_KEY", st.MinIO.SecretKey},
				{"AWS_REGION", st.MinIO.Region},
				{"AWS_ENDPOINT_URL", st.MinIO.Endpoint},
			} {
				fmt.Fprintln(w, quoteEnv(kv[0], kv[1]))
			}
			if !st.SupervisorAlive() {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: the stack in %s is not running (blastfleet dev up starts it)\n", dir)
			}
			return nil
		},
	}
	o.addFlags(cmd)
	return cmd
}
