package devcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/devstack"
)

// clusterDefaultDir is dev up --cluster's directory when none is given.
const clusterDefaultDir = "/var/lib/blastfleet/dev-cluster"

type devUpOptions struct {
	devOptions
	binDir, assets, minio, prometheus string
	ledgerPoll, maxLifetime           time.Duration
	env                               []string
	cluster, argo                     bool
	images                            string
}

func newDevUpCmd() *cobra.Command {
	o := &devUpOptions{}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start the local stack in the background and write its kubeconfig",
		Long: `Start every component of the local stack, each a process of its own under
one supervisor that runs in the background: etcd, kube-apiserver (with the
blastfleet.io and kubeflow.org MPIJob CRDs, and the operator's RBAC), a
MinIO server (bucket "blastfleet", Secret default/minio-credentials),
Prometheus (scraping the operator, the engine ranks, MinIO and etcd), the
operator (bin/blastfleet-manager) and the local runner. All listen on
127.0.0.1 only. The supervisor restarts a component that exits and stops
everything on "dev down".

It needs make build's bin/ (blastfleet, blastfleet-engine,
blastfleet-manager; default: the directory of this program), the
checkout (for the CRDs; found from the working directory), etcd and
kube-apiserver (KUBEBUILDER_ASSETS or hack/install-envtest.sh), MinIO
(BLASTFLEET_MINIO, hack/install-minio.sh or PATH), prometheus, mpirun and
BLAST+ (hack/install-deps.sh installs them).

The data (etcd, MinIO, Prometheus) and the ports are kept across down and
up unless "dev down --purge". When the stack is up already, up says so.`,
		Example: `  blastfleet dev up
  blastfleet dev up --dir /tmp/stack --ledger-poll-interval 1s`,
		Args: cobra.NoArgs,
		RunE: o.run,
	}
	o.addFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.binDir, "bin-dir", "", "where blastfleet, blastfleet-engine and blastfleet-manager are (default: this program's directory)")
	f.StringVar(&o.assets, "envtest-assets", "", "directory with etcd and kube-apiserver (default $KUBEBUILDER_ASSETS, else hack/install-envtest.sh)")
	f.StringVar(&o.minio, "minio", "", "the MinIO server binary (default $BLASTFLEET_MINIO, else hack/install-minio.sh, else minio on PATH)")
	f.StringVar(&o.prometheus, "prometheus", "", "the prometheus binary (default: prometheus on PATH)")
	f.DurationVar(&o.ledgerPoll, "ledger-poll-interval", 3*time.Second, "the operator's --ledger-poll-interval: how often campaigns' progress is read")
	f.DurationVar(&o.maxLifetime, "max-lifetime", 0, "stop the stack by itself after this long (default: run until dev down)")
	f.StringArrayVar(&o.env, "env", nil, "KEY=VALUE added to the environment of every process the local runner starts (repeatable)")
	f.BoolVar(&o.cluster, "cluster", false, "run a real one-node cluster (containerd, kubelet, kube-controller-manager, kube-scheduler, kube-proxy, CoreDNS; the operator, the MPI operator and MinIO as pods) instead of the local runner; needs root")
	f.BoolVar(&o.argo, "argo", false, "with --cluster: also install Argo Workflows' controller (hack/install-argo.sh builds it, make images packs it), so campaigns may use spec.executor argo and databases build as Workflows")
	f.StringVar(&o.images, "images", "", "with --cluster: the directory of image archives make images wrote (default $BLASTFLEET_IMAGES, else hack/build-images.sh)")
	return cmd
}

func (o *devUpOptions) run(cmd *cobra.Command, _ []string) error {
	if o.cluster && o.dir == "" && os.Getenv(devDirEnv) == "" {
		// Pods' non-root users reach their hostPath data (MinIO's) under
		// it, which a home directory usually forbids.
		o.dir = clusterDefaultDir
	}
	dir, err := o.resolveDir()
	if err != nil {
		return err
	}
	binDir := o.binDir
	if binDir == "" {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding bin/: %w (use --bin-dir)", err)
		}
		if self, err = filepath.EvalSymlinks(self); err == nil {
			binDir = filepath.Dir(self)
		}
	}
	cfg := &devstack.Config{
		Dir: dir, Assets: o.assets, MinIO: o.minio, Prometheus: o.prometheus,
		LedgerPollInterval: devstack.Duration(o.ledgerPoll), MaxLifetime: devstack.Duration(o.maxLifetime), Env: o.env,
	}
	if o.argo && !o.cluster {
		return fmt.Errorf("--argo needs --cluster: Argo's controller runs pods")
	}
	if o.cluster {
		cfg.Cluster = &devstack.ClusterConfig{Images: o.images, WithArgo: o.argo}
	}
	errOut := cmd.ErrOrStderr()
	if err := devstack.Resolve(cfg, binDir, errOut); err != nil {
		return err
	}
	st, already, err := devstack.Up(cmd.Context(), cfg, errOut)
	if err != nil {
		return err
	}
	bin := caller(cmd)
	if already {
		fmt.Fprintf(cmd.OutOrStdout(), "The local stack in %s is up already (since %s); nothing started.\n\n",
			dir, st.ReadyAt.Format(time.DateTime))
	}
	printStack(cmd.OutOrStdout(), st, bin, o.dirArg())
	return nil
}
