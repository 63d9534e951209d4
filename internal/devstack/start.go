package devstack

import (
	"context"
	"fmt"
	"os"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/devstack/localrunner"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// start brings the components up in dependency order. The runner is
// returned even on error, so the caller can stop what did start.
func (s *supervisor) start(ctx, runCtx context.Context) (*localrunner.Runner, error) {
	cfg, p := s.cfg, s.p
	ports, moved, err := loadPorts(p.ports())
	if err != nil {
		return nil, err
	}
	for _, m := range moved {
		s.warn("%s: objects kept from the previous run that name the old address no longer reach it", m)
	}
	creds, err := loadCredentials(p.credentials())
	if err != nil {
		return nil, fmt.Errorf("MinIO credentials: %w", err)
	}
	creds.Endpoint, creds.Region, creds.Bucket = "http://"+hostPort(ports.MinIO), region, cfg.Bucket
	creds.Secret = cfg.Namespace + "/" + SecretName
	k := pki{p.pki()}
	if err := k.ensure(); err != nil {
		return nil, fmt.Errorf("certificates: %w", err)
	}
	apiURL := "https://" + hostPort(ports.APIServer)
	if err := writeKubeconfig(p.kubeconfig(), k, apiURL, "admin", cfg.Namespace); err != nil {
		return nil, err
	}
	if err := writeKubeconfig(p.operatorKubeconfig(), k, apiURL, "operator", cfg.Namespace); err != nil {
		return nil, err
	}
	s.update(func(st *State) {
		st.MinIO, st.Prometheus = creds, "http://"+hostPort(ports.Prometheus)
		st.Runner = RunnerInfo{WorkDir: p.runner(), MetricsPortBase: ports.EngineMetricsBase}
	})
	s.step("certificates and kubeconfig ready: %s", p.kubeconfig())

	if err := s.run(ctx, runCtx, &component{child: etcdChild(cfg, p, ports), url: "http://" + hostPort(ports.Etcd),
		health: "http://" + hostPort(ports.Etcd) + "/health", notes: fmt.Sprintf("peer port %d, data %s", ports.EtcdPeer, p.etcdData())}); err != nil {
		return nil, err
	}
	api, err := apiserverChild(cfg, p, ports)
	if err != nil {
		return nil, err
	}
	if err := s.run(ctx, runCtx, &component{child: api, url: apiURL, health: apiURL + "/readyz", notes: "kubeconfig " + p.kubeconfig()}); err != nil {
		return nil, err
	}
	rc, err := RESTConfig(p.kubeconfig())
	if err != nil {
		return nil, err
	}
	c, err := client.New(rc, client.Options{Scheme: kubescheme.New()})
	if err != nil {
		return nil, fmt.Errorf("API client: %w", err)
	}
	if err := waitNamespace(ctx, c, cfg.Namespace); err != nil {
		return nil, err
	}
	if err := installCRDs(rc, cfg.CRDs); err != nil {
		return nil, err
	}
	if err := installOperatorRBAC(ctx, c, cfg.RBAC); err != nil {
		return nil, err
	}
	s.step("CRDs installed (blastfleet.io, kubeflow.org MPIJob) and the operator's ClusterRole bound to user %s", operatorUser)

	if err := s.run(ctx, runCtx, &component{child: minioChild(cfg, p, ports, creds), url: creds.Endpoint,
		health: creds.Endpoint + "/minio/health/live", notes: fmt.Sprintf("bucket %s, Secret %s, data %s", creds.Bucket, creds.Secret, p.minioData())}); err != nil {
		return nil, err
	}
	if err := ensureBucket(ctx, creds, hostPort(ports.MinIO)); err != nil {
		return nil, err
	}
	if err := ensureSamples(ctx, creds, hostPort(ports.MinIO)); err != nil {
		return nil, err
	}
	if err := ensureSecret(ctx, c, cfg.Namespace, creds); err != nil {
		return nil, err
	}
	s.step("bucket %s (with config/samples' inputs %s, %s) and Secret %s ready", creds.Bucket, SampleDatabaseKey, SampleQueriesKey, creds.Secret)

	prom, err := prometheusChild(cfg, p, ports)
	if err != nil {
		return nil, err
	}
	promURL := "http://" + hostPort(ports.Prometheus)
	if err := s.run(ctx, runCtx, &component{child: prom, url: promURL, health: promURL + "/-/ready",
		notes: "config " + p.prometheusConfig()}); err != nil {
		return nil, err
	}

	runner, err := startRunner(cfg, p, ports, rc, s.log.WithName("localrunner"))
	if err != nil {
		return nil, err
	}
	go s.watchRunner(runCtx, runner)
	s.step("local runner started in the supervisor (pid %d): MPIJobs and Jobs run as processes, logs under %s", os.Getpid(), p.runner())

	gc := &ownerGC{c: c, log: s.log.WithName("gc"), every: 3 * time.Second}
	go gc.run(runCtx)

	metrics := "http://" + hostPort(ports.OperatorMetrics) + "/metrics"
	op, err := operatorChild(cfg, p, ports, creds.Endpoint)
	if err != nil {
		return runner, err
	}
	if err := s.run(ctx, runCtx, &component{child: op, url: metrics,
		health: "http://" + hostPort(ports.OperatorProbes) + "/readyz", notes: "probes http://" + hostPort(ports.OperatorProbes)}); err != nil {
		return runner, err
	}
	return runner, nil
}

// run starts a component, waits until it is ready and supervises it.
func (s *supervisor) run(ctx, runCtx context.Context, c *component) error {
	c.changed = func(*child) { s.syncComponents() }
	s.mu.Lock()
	s.comps = append(s.comps, c)
	s.mu.Unlock()
	t0 := time.Now()
	if err := c.startReady(ctx, s.cfg.StartTimeout.D()); err != nil {
		return err
	}
	s.syncComponents()
	s.step("%s ready on %s (pid %d, %.1fs)", c.name, c.url, c.PID(), time.Since(t0).Seconds())
	go c.supervise(runCtx, s.cfg.StartTimeout.D(), func(format string, args ...any) { s.step(format, args...) })
	return nil
}
