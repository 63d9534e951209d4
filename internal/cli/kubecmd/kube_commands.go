// Package kubecmd is the blastfleet CLI's commands that talk to a cluster
// through a kubeconfig, also run as "kubectl blastfleet ...": submit, get,
// status, results, report, logs, suspend, resume and delete of
// SearchCampaigns.
package kubecmd

import "github.com/spf13/cobra"

// campaignGroup heads the commands that drive SearchCampaigns in a
// cluster in the root's help, apart from the ones that work on object
// storage directly (db, campaign).
const campaignGroup = "cluster"

// Add adds the commands that talk to a cluster through a kubeconfig
// (also as "kubectl blastfleet ...") to root, in a group of their own.
func Add(root *cobra.Command) {
	root.AddGroup(&cobra.Group{ID: campaignGroup, Title: "Campaigns on Kubernetes (any kubeconfig context):"})
	for _, cmd := range []*cobra.Command{
		newSubmitCmd(), newGetCmd(), newStatusCmd(), newResultsCmd(), newReportCmd(), newLogsCmd(),
		newSuspendCmd(), newResumeCmd(), newDeleteCmd(),
	} {
		cmd.GroupID = campaignGroup
		root.AddCommand(cmd)
	}
}
