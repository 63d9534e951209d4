package kubecmd

import (
	"context"

	"github.com/spf13/cobra"
)

// Locator finds SearchCampaigns' ledgers for commands outside this group
// (blastfleet hpc): the kubectl flags, and the campaign's location.
type Locator struct{ k kubeOptions }

func (l *Locator) AddFlags(cmd *cobra.Command) { l.k.addFlags(cmd) }

// Location is SearchCampaign name's ledger location on the cluster.
func (l *Locator) Location(ctx context.Context, cmd *cobra.Command, name string) (string, error) {
	kc, err := l.k.connect(cmd)
	if err != nil {
		return "", err
	}
	c, err := kc.getCampaign(ctx, name)
	if err != nil {
		return "", kc.explain(err)
	}
	return campaignLocation(c), nil
}
