package kubecmd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// kubeOptions are kubectl's connection flags, from k8s.io/cli-runtime
// (--kubeconfig, --context, -n, --as, --as-group, --as-uid,
// --request-timeout, -s/--server, --token, --user, --cluster, the TLS
// files, ...). They are added to the commands that talk to a cluster
// only, so "db shard --help" does not offer a --kubeconfig it would
// ignore.
type kubeOptions struct {
	flags *genericclioptions.ConfigFlags
}

func (k *kubeOptions) addFlags(cmd *cobra.Command) {
	// Made once: a Locator adds the same options to several commands
	// (hpc submit, status, cancel), whichever of them runs.
	if k.flags == nil {
		k.flags = genericclioptions.NewConfigFlags(false)
		// No discovery cache here, and results has a --cache-dir of its own.
		k.flags.CacheDir = nil
	}
	k.flags.AddFlags(cmd.Flags())
	k.addCompletions(cmd)
}

func (k *kubeOptions) kubeconfig() string { return *k.flags.KubeConfig }
func (k *kubeOptions) context() string    { return *k.flags.Context }
func (k *kubeOptions) namespace() string  { return *k.flags.Namespace }

// kube is a connection to one cluster and namespace.
type kube struct {
	c         client.Client
	cfg       *rest.Config
	namespace string
	// nsGiven: -n was given, so suggested commands must repeat it.
	nsGiven bool
	context string
	// bin is how the user runs us ("blastfleet" or "kubectl blastfleet"),
	// for the commands our messages suggest.
	bin string
}

// connect loads the kubeconfig the way kubectl does and makes the clients.
// API warnings go to errOut as kubectl prints them.
func (k *kubeOptions) connect(cmd *cobra.Command) (*kube, error) {
	if timeout := *k.flags.Timeout; timeout != "" {
		if _, err := clientcmd.ParseTimeout(timeout); err != nil {
			return nil, fmt.Errorf("--request-timeout %q: want a duration (1s, 2m, 3h) or whole seconds; 0 waits as long as it takes", timeout)
		}
	}
	cc := k.clientConfig()
	// cli-runtime's loader falls back to a default server when no
	// kubeconfig is found; unless --server names one, or a pod's service
	// account serves, say how to get one.
	if raw, err := cc.RawConfig(); err == nil && len(raw.Clusters) == 0 && *k.flags.APIServer == "" && os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
		return nil, k.configError(cc, cmd.Root().CommandPath(), clientcmd.ErrEmptyConfig)
	}
	bin := cmd.Root().CommandPath()
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, k.configError(cc, bin, err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig namespace: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "blastfleet"
	if cli.Version != "" {
		cfg.UserAgent += "/" + cli.Version
	}
	cfg.WarningHandler = rest.NewWarningWriter(cmd.ErrOrStderr(), rest.WarningWriterOptions{Deduplicate: true})
	c, err := client.New(cfg, client.Options{Scheme: kubescheme.New()})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	ctxName := k.context()
	if ctxName == "" {
		if raw, err := cc.RawConfig(); err == nil {
			ctxName = raw.CurrentContext
		}
	}
	return &kube{c: c, cfg: cfg, namespace: ns, nsGiven: k.namespace() != "", context: ctxName, bin: bin}, nil
}

// clientConfig is the kubeconfig as the flags override it, as kubectl
// loads it.
func (k *kubeOptions) clientConfig() clientcmd.ClientConfig {
	return k.flags.ToRawKubeConfigLoader()
}

// watchCampaign signals each change of campaign c that the API server
// reports, until ctx ends. It is nil (never ready) where no watch can be
// opened: callers poll as well.
func (k *kube) watchCampaign(ctx context.Context, c *v1alpha1.SearchCampaign) <-chan struct{} {
	if k.cfg == nil {
		return nil
	}
	wc, err := client.NewWithWatch(k.cfg, client.Options{Scheme: kubescheme.New()})
	if err != nil {
		return nil
	}
	w, err := wc.Watch(ctx, &v1alpha1.SearchCampaignList{}, client.InNamespace(c.Namespace),
		client.MatchingFields{"metadata.name": c.Name})
	if err != nil {
		return nil
	}
	changes := make(chan struct{}, 1)
	go func() {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-w.ResultChan():
				if !ok {
					return // the server closed it: polling goes on
				}
				select {
				case changes <- struct{}{}:
				default:
				}
			}
		}
	}()
	return changes
}

// configError says how to point at a cluster when the kubeconfig is
// missing or names no usable context.
func (k *kubeOptions) configError(cc clientcmd.ClientConfig, bin string, err error) error {
	if kc := k.kubeconfig(); kc != "" {
		if _, serr := os.Stat(kc); serr != nil {
			return fmt.Errorf("--kubeconfig: %w (for the local stack, %q writes one)", serr, bin+" dev up")
		}
	}
	if clientcmd.IsEmptyConfig(err) {
		return fmt.Errorf("no kubeconfig found: point at a cluster with --kubeconfig FILE or KUBECONFIG=FILE (default ~/.kube/config), "+
			"or start the local stack with %q, which writes one", bin+" dev up")
	}
	if name := k.context(); name != "" {
		if raw, rerr := cc.RawConfig(); rerr == nil {
			if _, ok := raw.Contexts[name]; !ok {
				return fmt.Errorf("--context %q is not in the kubeconfig; its contexts: %s", name, orNone(slices.Sorted(maps.Keys(raw.Contexts))))
			}
		}
	}
	return fmt.Errorf("loading the kubeconfig: %w", err)
}

// clientset is client-go's typed client, for what controller-runtime's
// client does not do (streaming pod logs).
func (k *kube) clientset() (*kubernetes.Clientset, error) {
	cs, err := kubernetes.NewForConfig(k.cfg)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", k.cfg.Host, err)
	}
	return cs, nil
}

// explain adds what to do to the errors every command can meet: the API
// server unreachable, or the blastfleet CRDs not installed. API errors
// (validation, forbidden, ...) are returned as they are: they name the
// field or permission themselves.
func (k *kube) explain(err error) error {
	var done *explained
	if err == nil || errors.As(err, &done) {
		return err
	}
	var opErr *net.OpError
	var noKind *meta.NoKindMatchError
	switch {
	case errors.As(err, &noKind) && noKind.GroupKind.Group == kubeflow.GroupName:
		return &explained{fmt.Errorf("the MPIJob API (kubeflow.org/v2beta1) is not installed on the cluster at %s (context %q): "+
			"this campaign's partitions run as MPIJobs, so install the MPI operator v0.8, or run campaigns as Argo Workflows "+
			"(submit --executor argo, spec.executor: argo) where Argo is installed: %w", k.cfg.Host, k.context, err)}
	case errors.As(err, &noKind) && noKind.GroupKind.Group == argowf.GroupVersion.Group:
		return &explained{fmt.Errorf("the Workflow API (%s) is not installed on the cluster at %s (context %q): "+
			"this campaign's partitions run as Argo Workflows (spec.executor: argo), so install Argo Workflows %s: %w",
			argowf.GroupVersion, k.cfg.Host, k.context, argowf.Version, err)}
	case meta.IsNoMatchError(err):
		return &explained{fmt.Errorf("the blastfleet.io API is not installed on the cluster at %s (context %q): install blastfleet's CRDs "+
			"(helm install blastfleet charts/blastfleet, or kubectl apply -k config/crd): %w", k.cfg.Host, k.context, err)}
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &opErr) && opErr.Op == "dial":
		return &explained{fmt.Errorf("cannot reach the API server at %s (context %q): %w; is the cluster up? "+
			"For the local stack run %q, or pick another cluster with --context or --kubeconfig", k.cfg.Host, k.context, err, k.bin+" dev up")}
	}
	return err
}

// explained marks an error explain has dealt with, so an error passing
// through it twice is explained once.
type explained struct{ error }

// storageError marks an object storage error, which explain must not
// take for the API server's (a refused connection is S3's here).
func storageError(err error) error {
	if err == nil {
		return nil
	}
	return &explained{err}
}

func (e *explained) Unwrap() error { return e.error }

// suggest is a command line to suggest to the user for a campaign in
// namespace ns: "blastfleet status run1 -n lab".
func (k *kube) suggest(ns, args string) string {
	s := k.bin + " " + args
	if k.nsGiven || ns != k.namespace {
		s += " -n " + ns
	}
	return s
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// kubeRun wraps a command body: connect, run, explain.
func kubeRun(k *kubeOptions, run func(ctx context.Context, cmd *cobra.Command, kc *kube, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		kc, err := k.connect(cmd)
		if err != nil {
			return err
		}
		return kc.explain(run(cmd.Context(), cmd, kc, args))
	}
}
