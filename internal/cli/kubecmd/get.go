package kubecmd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
)

type getOptions struct {
	format    string
	all       bool
	selector  string
	noHeaders bool
	labels    bool
	labelCols []string
	// print is cli-runtime's printers for the formats kubectl has no
	// table for: json, yaml, name, jsonpath, go-template.
	print *genericclioptions.PrintFlags
}

func newGetCmd() *cobra.Command {
	o := &getOptions{print: genericclioptions.NewPrintFlags("")}
	o.print.OutputFormat = &o.format
	k := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "get [NAME...]",
		Short: "List campaigns: phase, progress, chunks, partitions",
		Long: `List the SearchCampaigns of a namespace (all namespaces with -A), or the ones
named, as kubectl get bsc does: PHASE, PROGRESS (share of queries done),
CHUNKS (committed/total), PARTITIONS (running/desired) and AGE. -o takes
kubectl's output formats, printed by kubectl's own printers (cli-runtime):
wide adds every other printer column of the CRD (SITES) and the database,
the program, queries done/total and failed, and the ledger's location;
json|yaml prints the objects; name, jsonpath=..., jsonpath-file=...,
go-template=..., custom-columns=... and custom-columns-file=... work as in
kubectl.`,
		Example: `  blastfleet get
  blastfleet get -A -o wide
  blastfleet get human-vs-sprot -o yaml
  blastfleet get -o name | xargs -n1 blastfleet status
  blastfleet get -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.status.phase}{"\n"}{end}'
  blastfleet get -o custom-columns=NAME:.metadata.name,DONE:.status.queries.done,RESULT:.status.result`,
		RunE: kubeRun(k, o.run),
	}
	f := cmd.Flags()
	f.StringVarP(&o.format, "output", "o", "", "output format: wide, name, json, yaml, jsonpath=..., jsonpath-as-json=..., jsonpath-file=..., go-template=..., go-template-file=..., custom-columns=..., custom-columns-file=... (default: a table)")
	o.print.TemplatePrinterFlags.AddFlags(cmd)
	o.print.JSONYamlPrintFlags.AddFlags(cmd)
	f.BoolVarP(&o.all, "all-namespaces", "A", false, "list the campaigns of every namespace")
	f.StringVarP(&o.selector, "selector", "l", "", "label selector, e.g. team=genomics")
	f.BoolVar(&o.noHeaders, "no-headers", false, "print tables without their header")
	f.BoolVar(&o.labels, "show-labels", false, "add a LABELS column to the table")
	f.StringSliceVarP(&o.labelCols, "label-columns", "L", nil, "add a column for each of these labels")
	k.addFlags(cmd)
	k.completeCampaigns(cmd, true)
	return cmd
}

func (o *getOptions) run(ctx context.Context, cmd *cobra.Command, kc *kube, names []string) error {
	// Resolve the printer before listing, so a bad -o fails at once.
	table := o.format == "" || o.format == "wide"
	cc, custom, err := parseCustomColumns(o.format)
	if err != nil {
		return err
	}
	var printer printers.ResourcePrinter
	if !table && !custom {
		if printer, err = o.print.ToPrinter(); err != nil {
			if genericclioptions.IsNoCompatiblePrinterError(err) {
				return fmt.Errorf("-o/--output %q: want wide, custom-columns=... or custom-columns-file=..., or one of %s", o.format,
					strings.Join(o.print.AllowedFormats(), ", "))
			}
			return fmt.Errorf("-o/--output %q: %w", o.format, err)
		}
	}
	items, err := o.campaigns(ctx, kc, names)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	switch {
	case table || custom:
		if len(items) == 0 {
			where := "namespace " + kc.namespace
			if o.all {
				where = "any namespace"
			}
			cli.Hint(cmd.ErrOrStderr(), "No campaigns found in %s.", where)
			return nil
		}
		if custom {
			return cc.print(w, items, o.noHeaders)
		}
		return printers.NewTablePrinter(printers.PrintOptions{Wide: o.format == "wide", WithNamespace: o.all,
			NoHeaders: o.noHeaders, ShowLabels: o.labels, ColumnLabels: o.labelCols}).PrintObj(campaignTable(items, time.Now()), w)
	case len(names) == 1:
		// One named campaign prints as the object, as kubectl does.
		return printer.PrintObj(withType(&items[0]), w)
	case o.format == "name":
		// kubectl prints a name per object; the name printer takes no lists.
		for i := range items {
			if err := printer.PrintObj(withType(&items[i]), w); err != nil {
				return err
			}
		}
		return nil
	}
	list := &v1alpha1.SearchCampaignList{Items: make([]v1alpha1.SearchCampaign, len(items))}
	list.APIVersion, list.Kind = v1alpha1.GroupVersion.String(), "SearchCampaignList"
	for i := range items {
		list.Items[i] = *withType(&items[i])
	}
	return printer.PrintObj(list, w)
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

func parseSelector(s string) (labels.Selector, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("-l/--selector %q: %w", s, err)
	}
	return sel, nil
}
