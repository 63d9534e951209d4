package kubecmd

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// completionTimeout bounds the API calls one <TAB> makes: a shell that
// hangs on an unreachable cluster is worse than no completion.
const completionTimeout = 5 * time.Second

// addCompletions completes --context from the kubeconfig and --namespace
// from the cluster, as kubectl does.
func (k *kubeOptions) addCompletions(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("context", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		raw, err := k.clientConfig().RawConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return slices.Sorted(maps.Keys(raw.Contexts)), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("namespace", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var names []string
		k.completionList(cmd, &corev1.NamespaceList{}, func(l client.ObjectList) {
			for _, ns := range l.(*corev1.NamespaceList).Items {
				names = append(names, ns.Name)
			}
		})
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

// completeCampaigns makes cmd's arguments complete to the names of the
// namespace's SearchCampaigns; one name only unless many, and a name
// given already is not offered again.
func (k *kubeOptions) completeCampaigns(cmd *cobra.Command, many bool) {
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if !many && len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []cobra.Completion
		k.completionList(cmd, &v1alpha1.SearchCampaignList{}, func(l client.ObjectList) {
			for _, c := range l.(*v1alpha1.SearchCampaignList).Items {
				if strings.HasPrefix(c.Name, toComplete) && !slices.Contains(args, c.Name) {
					names = append(names, cobra.CompletionWithDesc(c.Name, string(c.Status.Phase)))
				}
			}
		})
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// completionList lists into list in the flags' namespace (for a
// namespaced kind) and hands it to use; any error means no completions.
func (k *kubeOptions) completionList(cmd *cobra.Command, list client.ObjectList, use func(client.ObjectList)) {
	kc, err := k.connect(cmd)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(cmdContext(cmd), completionTimeout)
	defer cancel()
	var opts []client.ListOption
	if _, namespaces := list.(*corev1.NamespaceList); !namespaces {
		opts = append(opts, client.InNamespace(kc.namespace))
	}
	if err := kc.c.List(ctx, list, opts...); err == nil {
		use(list)
	}
}

// cmdContext is cmd's context, or a background one: cobra's __complete
// runs the completion functions with the root's context, unset in tests
// that call them directly.
func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
