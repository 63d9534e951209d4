package kubecmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
)

type getOptions struct {
	format   string
	all      bool
	selector string
}

func newGetCmd() *cobra.Command {
	o := &getOptions{}
	k := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "get [NAME...]",
		Short: "List campaigns: phase, progress, chunks, partitions",
		Long: `List the SearchCampaigns of a namespace (all namespaces with -A), or the ones
named, as kubectl get bsc does: PHASE, PROGRESS (share of queries done),
CHUNKS (committed/total), PARTITIONS (running/desired) and AGE. -o wide adds
the database, the program, queries done/total and failed, and the ledger's
location; -o json|yaml prints the objects.`,
		Example: `  blastfleet get
  blastfleet get -A -o wide
  blastfleet get human-vs-sprot -o yaml`,
		RunE: kubeRun(k, o.run),
	}
	f := cmd.Flags()
	f.StringVarP(&o.format, "output", "o", "", "output format: wide, json or yaml (default: a table)")
	f.BoolVarP(&o.all, "all-namespaces", "A", false, "list the campaigns of every namespace")
	f.StringVarP(&o.selector, "selector", "l", "", "label selector, e.g. team=genomics")
	k.addFlags(cmd)
	return cmd
}

func (o *getOptions) run(ctx context.Context, cmd *cobra.Command, kc *kube, names []string) error {
	if err := cli.CheckFormat(o.format, "", "wide", "json", "yaml"); err != nil {
		return err
	}
	items, err := o.campaigns(ctx, kc, names)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	switch o.format {
	case "json", "yaml":
		// One named campaign prints as the object, as kubectl does.
		if len(names) == 1 {
			return printObject(w, o.format, withType(&items[0]))
		}
		list := &v1alpha1.SearchCampaignList{Items: make([]v1alpha1.SearchCampaign, len(items))}
		list.APIVersion, list.Kind = v1alpha1.GroupVersion.String(), "SearchCampaignList"
		for i := range items {
			list.Items[i] = *withType(&items[i])
		}
		return printObject(w, o.format, list)
	}
	if len(items) == 0 {
		where := "namespace " + kc.namespace
		if o.all {
			where = "any namespace"
		}
		cli.Hint(cmd.ErrOrStderr(), "No campaigns found in %s.", where)
		return nil
	}
	printCampaignTable(w, items, o.all, o.format == "wide", time.Now())
	return nil
}

// campaigns are the named campaigns (each must exist) or the listed ones.
func (o *getOptions) campaigns(ctx context.Context, kc *kube, names []string) ([]v1alpha1.SearchCampaign, error) {
	if len(names) > 0 {
		if o.all || o.selector != "" {
			return nil, fmt.Errorf("name campaigns or select them with -A/-l, not both")
		}
		var items []v1alpha1.SearchCampaign
		for _, n := range names {
			c, err := kc.getCampaign(ctx, n)
			if err != nil {
				return nil, err
			}
			items = append(items, *c)
		}
		return items, nil
	}
	var opts []client.ListOption
	if !o.all {
		opts = append(opts, client.InNamespace(kc.namespace))
	}
	if o.selector != "" {
		sel, err := parseSelector(o.selector)
		if err != nil {
			return nil, err
		}
		opts = append(opts, client.MatchingLabelsSelector{Selector: sel})
	}
	var list v1alpha1.SearchCampaignList
	if err := kc.c.List(ctx, &list, opts...); err != nil {
		return nil, fmt.Errorf("listing campaigns: %w", err)
	}
	slices.SortFunc(list.Items, func(a, b v1alpha1.SearchCampaign) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return list.Items, nil
}

// printCampaignTable prints the CRD's printer columns (docs/crds.md), and
// with wide a few more.
func printCampaignTable(w io.Writer, items []v1alpha1.SearchCampaign, namespaces, wide bool, now time.Time) {
	tw := newTable(w)
	head := []string{"NAME", "PHASE", "PROGRESS", "CHUNKS", "PARTITIONS", "AGE"}
	if namespaces {
		head = append([]string{"NAMESPACE"}, head...)
	}
	if wide {
		head = append(head, "DATABASE", "PROGRAM", "QUERIES", "FAILED", "LOCATION")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for i := range items {
		c := &items[i]
		s := c.Status
		row := []string{c.Name, string(s.Phase), s.Progress, s.ChunksRatio, s.PartitionsRatio, age(c.CreationTimestamp, now)}
		if namespaces {
			row = append([]string{c.Namespace}, row...)
		}
		if wide {
			row = append(row, c.Spec.DatabaseRef.Name, string(c.Spec.Program),
				fmt.Sprintf("%d/%d", s.Queries.Done, s.Queries.Total), fmt.Sprint(s.Queries.Failed), campaignLocation(c))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

func parseSelector(s string) (labels.Selector, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("-l/--selector %q: %w", s, err)
	}
	return sel, nil
}
