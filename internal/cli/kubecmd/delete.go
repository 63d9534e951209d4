package kubecmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
)

// deletePoll is how often delete --wait looks (tests shorten it).
var deletePoll = time.Second

type deleteOptions struct {
	wait    bool
	timeout time.Duration
}

func newDeleteCmd() *cobra.Command {
	o := &deleteOptions{}
	k := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "delete NAME...",
		Short: "Delete campaigns and their partitions; their results stay in object storage",
		Long: `Delete SearchCampaigns. Their partitions (MPIJobs, owned by the campaign) are
deleted with them by the garbage collector; the ledger and the result stay
in object storage at the campaign's location, and a campaign created again
with the same name and spec continues from that ledger.

--wait waits until the campaigns and their partitions are gone (up to
--timeout).`,
		Example: `  blastfleet delete human-vs-sprot
  blastfleet delete run1 run2 --wait`,
		Args: cobra.MinimumNArgs(1),
		RunE: kubeRun(k, o.run),
	}
	cmd.Flags().BoolVar(&o.wait, "wait", false, "wait until the campaigns and their partitions are gone")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 2*time.Minute, "how long --wait waits")
	k.addFlags(cmd)
	k.completeCampaigns(cmd, true)
	return cmd
}

func (o *deleteOptions) run(ctx context.Context, cmd *cobra.Command, kc *kube, names []string) error {
	var errs []error
	var deleted []*v1alpha1.SearchCampaign
	for _, name := range names {
		c, err := kc.getCampaign(ctx, name)
		if err == nil {
			err = kc.c.Delete(ctx, c, client.PropagationPolicy(metav1.DeletePropagationBackground), client.Preconditions{UID: &c.UID})
			err = client.IgnoreNotFound(err) // gone meanwhile: as good
		}
		if err != nil {
			errs = append(errs, kc.explain(err))
			continue
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s/%s deleted\n", campaignResource, c.Name)
		cli.Hint(cmd.ErrOrStderr(), "its ledger and result stay at %s", campaignLocation(c))
		deleted = append(deleted, c)
	}
	if o.wait {
		ctx, cancel := context.WithTimeout(ctx, o.timeout)
		defer cancel()
		for _, c := range deleted {
			if err := waitGone(ctx, kc, c); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// waitGone polls until the campaign and its partitions no longer exist.
func waitGone(ctx context.Context, kc *kube, c *v1alpha1.SearchCampaign) error {
	for {
		left, err := remains(ctx, kc, c)
		if err != nil {
			return err
		}
		if left == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("campaign %s: still there after --timeout: %s", c.Name, left)
		case <-time.After(deletePoll):
		}
	}
}

// remains says what of the campaign is left: itself, or partitions.
func remains(ctx context.Context, kc *kube, c *v1alpha1.SearchCampaign) (string, error) {
	var cur v1alpha1.SearchCampaign
	err := kc.c.Get(ctx, client.ObjectKeyFromObject(c), &cur)
	switch {
	case err == nil && cur.UID == c.UID:
		return "the campaign itself", nil
	case err != nil && !apierrors.IsNotFound(err):
		return "", fmt.Errorf("campaign %s: %w", c.Name, kc.explain(err))
	}
	parts, err := kc.partitions(ctx, c)
	if meta.IsNoMatchError(err) {
		return "", nil // no MPIJob (or Workflow) API: no partitions either
	}
	if err != nil {
		return "", kc.explain(err)
	}
	if len(parts) > 0 {
		return fmt.Sprintf("%d partition(s), e.g. %s %s", len(parts), parts[0].kind(), parts[0].obj.GetName()), nil
	}
	return "", nil
}
