package kubecmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func newSuspendCmd() *cobra.Command {
	return newSuspendResumeCmd(true, &cobra.Command{
		Use:   "suspend NAME...",
		Short: "Suspend campaigns: stop their partitions, keep their ledgers",
		Long: `Set spec.suspend on SearchCampaigns. The operator deletes their partitions
(MPIJobs) and keeps their ledgers in object storage: committed chunks stay
committed, and chunks being worked on are leased again after resume. The
phase becomes Suspended.`,
		Example: `  blastfleet suspend human-vs-sprot
  blastfleet resume human-vs-sprot`,
	})
}

func newResumeCmd() *cobra.Command {
	return newSuspendResumeCmd(false, &cobra.Command{
		Use:   "resume NAME...",
		Short: "Resume suspended campaigns where they stopped",
		Long: `Clear spec.suspend on SearchCampaigns. The operator creates their partitions
again, and they continue from the ledger: nothing committed is redone.`,
		Example: `  blastfleet resume human-vs-sprot
  blastfleet status human-vs-sprot --watch`,
	})
}

// newSuspendResumeCmd patches spec.suspend to suspend on each campaign.
func newSuspendResumeCmd(suspend bool, cmd *cobra.Command) *cobra.Command {
	k := &kubeOptions{}
	cmd.Args = cobra.MinimumNArgs(1)
	cmd.RunE = kubeRun(k, func(ctx context.Context, cmd *cobra.Command, kc *kube, names []string) error {
		var errs []error
		for _, name := range names {
			if err := setSuspend(ctx, cmd, kc, name, suspend); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	})
	k.addFlags(cmd)
	k.completeCampaigns(cmd, true)
	return cmd
}

func setSuspend(ctx context.Context, cmd *cobra.Command, kc *kube, name string, suspend bool) error {
	c, err := kc.getCampaign(ctx, name)
	if err != nil {
		return err
	}
	verb := map[bool]string{true: "suspended", false: "resumed"}[suspend]
	w := cmd.OutOrStdout()
	if c.Spec.Suspend == suspend {
		fmt.Fprintf(w, "%s/%s already %s\n", campaignResource, c.Name, verb)
		return nil
	}
	// A merge patch of this one field: nothing else the user or the
	// operator wrote meanwhile is overwritten.
	patch := fmt.Appendf(nil, `{"spec":{"suspend":%t}}`, suspend)
	if err := kc.c.Patch(ctx, c, client.RawPatch(client.Merge.Type(), patch), client.FieldOwner("blastfleet")); err != nil {
		return fmt.Errorf("%s campaign %s: %w", map[bool]string{true: "suspending", false: "resuming"}[suspend], name, kc.explain(err))
	}
	fmt.Fprintf(w, "%s/%s %s\n", campaignResource, c.Name, verb)
	return nil
}
