package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
)

// bench is one run: the cluster's processes, the clients, what it counts.
type bench struct {
	cfg    config
	bins   *binaries
	cp     *controlPlane
	minio  *minioServer
	others []*proc // scheduler, controller manager, MPI operator, kwok
	op     *proc

	scheme  *runtime.Scheme
	c       client.Client // straight to the API server
	cache   cache.Cache
	w       *workload
	standIn *standIn

	opMetrics, apiMetrics *scraper
	t0                    time.Time
	lastRunning, allDone  time.Duration
	restarts              []string
	// settled is when the operator's metrics were marked, settleAfter the
	// last restart: the reconciles after it are those of a cluster that
	// restarts nothing (zero: no mark).
	settled     time.Duration
	restartedAt time.Time
}

// settleAfter is how long after the API server's restart the operator's
// reconciles still meet its reconnects and the backlog of the outage.
const settleAfter = 30 * time.Second

// start brings the cluster up: control plane, store, the cluster's own
// components, kwok's nodes, then the operator.
func (b *bench) start(ctx context.Context) error {
	var err error
	if b.cp, err = newControlPlane(b.cfg.dir, b.bins.assets); err != nil {
		return err
	}
	if b.minio, err = newMinIO(b.cfg.dir, b.bins); err != nil {
		return err
	}
	for _, p := range []*proc{b.cp.etcd, b.cp.apiserver, b.minio.proc} {
		if err := p.start(ctx); err != nil {
			return err
		}
	}
	if err := b.minio.makeBucket(ctx); err != nil {
		return err
	}
	b.scheme = kubescheme.New()
	rc := b.cp.restConfig()
	if b.c, err = client.New(rc, client.Options{Scheme: b.scheme}); err != nil {
		return err
	}
	crds, err := kubetest.CRDPaths()
	if err != nil {
		return err
	}
	if _, err := envtest.InstallCRDs(rc, envtest.CRDInstallOptions{Paths: crds, ErrorIfPathMissing: true, Scheme: b.scheme}); err != nil {
		return fmt.Errorf("installing CRDs: %w", err)
	}
	b.w = &workload{c: b.c, store: b.minio, campaigns: b.cfg.campaigns, partitions: int32(b.cfg.partitions)}
	if err := b.w.prepare(ctx); err != nil {
		return err
	}
	sched, err := schedulerProc(b.cfg.dir, b.bins, b.cp.kubeconfig)
	if err != nil {
		return err
	}
	kwok, err := kwokProc(b.cfg.dir, b.bins, b.cp.kubeconfig)
	if err != nil {
		return err
	}
	b.others = []*proc{sched, controllerManagerProc(b.cfg.dir, b.bins, b.cp.kubeconfig),
		mpiOperatorProc(b.cfg.dir, b.bins, b.cp.kubeconfig, b.cfg.mpiThreads), kwok}
	for _, p := range b.others {
		if err := p.start(ctx); err != nil {
			return err
		}
	}
	if err := createNodes(ctx, b.c, b.cfg.nodes); err != nil {
		return err
	}
	if err := b.waitNodesReady(ctx); err != nil {
		return err
	}
	var opURL string
	if b.op, opURL, err = operatorProc(b.cfg.dir, b.bins, b.cp.kubeconfig, b.cfg.operatorArgs); err != nil {
		return err
	}
	if err := b.op.start(ctx); err != nil {
		return err
	}
	b.opMetrics = newScraper(opURL, "", insecureClient(), keepOperatorSample)
	b.apiMetrics = newScraper(b.cp.url+"/metrics", b.cp.token, insecureClient(), func(s sample) bool { return s.name == "apiserver_request_total" })
	return b.startStandIn(ctx)
}

func keepOperatorSample(s sample) bool {
	switch s.name {
	case "controller_runtime_reconcile_time_seconds_bucket", "controller_runtime_reconcile_time_seconds_count",
		"controller_runtime_reconcile_time_seconds_sum", "controller_runtime_reconcile_total":
		return s.labels["controller"] == "searchcampaign"
	case stepSeconds + "_bucket", stepSeconds + "_count", stepSeconds + "_sum", storeReads, pollerReads:
		return true
	case "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total":
		return true
	}
	return false
}

func (b *bench) waitNodesReady(ctx context.Context) error {
	return poll(ctx, 2*time.Minute, "kwok's nodes Ready", func() (bool, string, error) {
		var nodes corev1.NodeList
		if err := b.c.List(ctx, &nodes); err != nil {
			return false, "", err
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready >= b.cfg.nodes, fmt.Sprintf("%d of %d", ready, b.cfg.nodes), nil
	})
}

// startStandIn starts the informers the stand-in and the progress loop
// read (pods, campaigns and MPIJobs of the bench's namespace) and the
// stand-in's workers.
func (b *bench) startStandIn(ctx context.Context) error {
	var err error
	b.cache, err = cache.New(b.cp.restConfig(), cache.Options{Scheme: b.scheme, DefaultNamespaces: map[string]cache.Config{namespace: {}}})
	if err != nil {
		return err
	}
	cached, err := client.New(b.cp.restConfig(), client.Options{Scheme: b.scheme, Cache: &client.CacheOptions{Reader: b.cache}})
	if err != nil {
		return err
	}
	b.standIn = newStandIn(cached, b.w, b.cfg.hold)
	pods, err := b.cache.GetInformer(ctx, &corev1.Pod{})
	if err != nil {
		return err
	}
	if _, err := pods.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { b.observePod(obj) },
		UpdateFunc: func(_, obj any) { b.observePod(obj) },
	}); err != nil {
		return err
	}
	for _, obj := range []client.Object{&v1alpha1.SearchCampaign{}, &kubeflow.MPIJob{}} {
		if _, err := b.cache.GetInformer(ctx, obj); err != nil {
			return err
		}
	}
	go func() {
		if err := b.cache.Start(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "informers: %v\n", err)
		}
	}()
	if !b.cache.WaitForCacheSync(ctx) {
		return fmt.Errorf("informers did not sync")
	}
	b.standIn.run(ctx, b.cfg.standInWorkers)
	return nil
}

func (b *bench) observePod(obj any) {
	if p, ok := obj.(*corev1.Pod); ok {
		b.standIn.observe(p)
	}
}

// stop ends every process the bench started, the operator first.
func (b *bench) stop() {
	var all []*proc
	if b.op != nil {
		all = append(all, b.op)
	}
	for i := len(b.others) - 1; i >= 0; i-- {
		all = append(all, b.others[i])
	}
	if b.minio != nil {
		all = append(all, b.minio.proc)
	}
	if b.cp != nil {
		all = append(all, b.cp.apiserver, b.cp.etcd)
	}
	for _, p := range all {
		p.stop()
	}
}

// logs names the components' log files, for a failed run's message.
func (b *bench) logs() string { return filepath.Join(b.cfg.dir, "*.log") }

// poll calls cond every second until it holds, fails, or timeout passes.
func poll(ctx context.Context, timeout time.Duration, what string, cond func() (bool, string, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, state, err := cond()
		if err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("waiting for %s: %s (%v)", what, state, err)
		}
		time.Sleep(time.Second)
	}
}
