package install

import (
	"reflect"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
)

// configArgs are the manager's arguments from the chart and config/manager:
// its configuration file, and the log level (a zap flag).
var configArgs = []string{"--config=/etc/blastfleet/config/config.yaml", "--zap-log-level=info"}

// managerConfigMap is the ConfigMap the manager's Deployment mounts at
// /etc/blastfleet/config, checked to be mounted so.
func managerConfigMap(t *testing.T, objs []*unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	var d appsv1.Deployment
	into(t, find(t, objs, "Deployment", "").Object, &d)
	c := d.Spec.Template.Spec.Containers[0]
	var volume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/etc/blastfleet/config" && m.ReadOnly {
			volume = m.Name
		}
	}
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == volume && v.ConfigMap != nil {
			return find(t, objs, "ConfigMap", v.ConfigMap.Name)
		}
	}
	t.Fatalf("the manager mounts no ConfigMap read-only at /etc/blastfleet/config: mounts %+v, volumes %+v", c.VolumeMounts, d.Spec.Template.Spec.Volumes)
	return nil
}

// managerConfig is the configuration the manager reads from objs (the
// defaults, then the file), and the file's own fields.
func managerConfig(t *testing.T, objs []*unstructured.Unstructured) (config.Configuration, map[string]any) {
	t.Helper()
	cm := managerConfigMap(t, objs)
	raw, _, _ := unstructured.NestedString(cm.Object, "data", "config.yaml")
	c, err := config.Decode([]byte(raw))
	if err != nil {
		t.Fatalf("ConfigMap %s: the manager would refuse its config.yaml: %v\n%s", cm.GetName(), err, raw)
	}
	var fields map[string]any
	if err := yaml.Unmarshal([]byte(raw), &fields); err != nil {
		t.Fatal(err)
	}
	return c, fields
}

// With its default values the chart's configuration names only what the
// chart decides (its ports, image and Lease), the rest keeping the
// operator's defaults, which live in code.
func TestChartConfigDefaults(t *testing.T) {
	objs := render(t, chartDir)
	if got := managerArgs(t, objs); !slices.Equal(got, configArgs) {
		t.Errorf("manager args %v, want %v", got, configArgs)
	}
	c, fields := managerConfig(t, objs)
	var keys []string
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"apiVersion", "health", "kind", "leaderElection", "metrics", "workerImage"}; !slices.Equal(keys, want) {
		t.Errorf("the default configuration names %v, want only %v", keys, want)
	}
	want := config.Default()
	want.WorkerImage = "ghcr.io/blastfleet/worker:v0.1.0"
	want.LeaderElection.LeaderElect, want.LeaderElection.ResourceName = true, release+".blastfleet.io"
	if !reflect.DeepEqual(c, want) {
		t.Errorf("the chart's default configuration\n%+v\nwant\n%+v", c, want)
	}
	off, _ := managerConfig(t, render(t, chartDir, "--set", "metrics.enabled=false", "--set", "metrics.port=9443", "--set", "probes.port=9081"))
	if off.Metrics.BindAddress != "0" || off.Health.HealthProbeBindAddress != ":9081" {
		t.Errorf("metrics off, probes on 9081: metrics %q, probes %q", off.Metrics.BindAddress, off.Health.HealthProbeBindAddress)
	}
}

// Each operator value set reaches its configuration field, with its type
// (a quoted margin a number, counts integers), and a changed
// configuration rolls the pods.
func TestChartConfigValues(t *testing.T) {
	set := []string{
		"operator.ledgerPollInterval=30s", "operator.summaryMaxAge=5m", "operator.partitionTTL=2h", "operator.partitionWindDown=30s",
		"operator.partitionNetworkPolicy=false", "operator.namespaceSelector=", "operator.site=lab-a",
		"operator.bounds.maxConcurrentReconciles=4", "operator.bounds.storeRequestTimeout=10s", "operator.bounds.reconcileTimeout=1m",
		"operator.bounds.assembleTimeout=20m", "operator.bounds.maxObjectBytes=1048576", "operator.bounds.kubeApiQPS=20", "operator.bounds.kubeApiBurst=40",
		"operator.burst.interval=1m", "operator.burst.window=2m", "operator.burst.margin=0.25",
		"operator.defaultStore.endpoint=http://minio.minio.svc:9000", "sts.endpoint=https://sts.example.org",
	}
	var args []string
	for _, s := range set {
		args = append(args, "--set", s)
	}
	objs := render(t, chartDir, args...)
	c, _ := managerConfig(t, objs)
	want := config.Default()
	want.WorkerImage = "ghcr.io/blastfleet/worker:v0.1.0"
	want.LeaderElection.LeaderElect, want.LeaderElection.ResourceName = true, release+".blastfleet.io"
	want.LedgerPollInterval.Duration, want.SummaryMaxAge.Duration = 30*time.Second, 5*time.Minute
	want.PartitionTTL.Duration, want.PartitionWindDown.Duration = 2*time.Hour, 30*time.Second
	want.PartitionNetworkPolicy, want.NamespaceSelector, want.Site = false, "", "lab-a"
	want.Bounds = config.Bounds{MaxConcurrentReconciles: 4, MaxObjectBytes: 1 << 20}
	want.Bounds.StoreRequestTimeout.Duration, want.Bounds.ReconcileTimeout.Duration, want.Bounds.AssembleTimeout.Duration = 10*time.Second, time.Minute, 20*time.Minute
	want.ClientConnection = config.ClientConnection{QPS: 20, Burst: 40}
	want.Burst.Interval.Duration, want.Burst.Window.Duration, want.Burst.Margin = time.Minute, 2*time.Minute, 0.25
	want.DefaultStore.Endpoint, want.STSEndpoint = "http://minio.minio.svc:9000", "https://sts.example.org"
	if !reflect.DeepEqual(c, want) {
		t.Errorf("configuration\n%+v\nwant\n%+v", c, want)
	}

	checksum := func(objs []*unstructured.Unstructured) string {
		s, _, _ := unstructured.NestedString(find(t, objs, "Deployment", "").Object, "spec", "template", "metadata", "annotations", "checksum/config")
		return s
	}
	if a, b := checksum(render(t, chartDir)), checksum(objs); a == "" || a == b {
		t.Errorf("pod checksum/config %q by default, %q with other values: a changed configuration must roll the pods", a, b)
	}
}

// dashboardConfigMaps are the chart's ConfigMaps but the manager's
// configuration.
func dashboardConfigMaps(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	return slices.DeleteFunc(ofKind(objs, "ConfigMap"), func(cm *unstructured.Unstructured) bool { return cm.GetName() == release+"-config" })
}
