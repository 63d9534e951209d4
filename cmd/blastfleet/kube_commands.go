package main

import "github.com/spf13/cobra"

// campaignGroup heads the commands that drive SearchCampaigns in a
// cluster in the root's help, apart from the ones that work on object
// storage directly (db, campaign).
const campaignGroup = "cluster"

// addClusterCommands adds the commands that talk to a cluster through a
// kubeconfig (also as "kubectl blastfleet ...").
func addClusterCommands(root *cobra.Command) {
	root.AddGroup(&cobra.Group{ID: campaignGroup, Title: "Campaigns on Kubernetes (any kubeconfig context):"})
	for _, cmd := range []*cobra.Command{
		newSubmitCmd(), newGetCmd(), newStatusCmd(), newResultsCmd(), newReportCmd(), newLogsCmd(),
		newSuspendCmd(), newResumeCmd(), newDeleteCmd(),
	} {
		cmd.GroupID = campaignGroup
		root.AddCommand(cmd)
	}
}
