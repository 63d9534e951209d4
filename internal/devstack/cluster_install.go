package devstack

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// corednsRBAC grants CoreDNS's user what its kubernetes plugin reads.
func corednsRBAC(ctx context.Context, c client.Client) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "blastfleet-dev:coredns"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"endpoints", "services", "pods", "namespaces"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "blastfleet-dev:coredns"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: corednsUser}},
	}
	for _, o := range []client.Object{role, binding} {
		if err := apply(ctx, c, o); err != nil {
			return err
		}
	}
	return nil
}

// waitNodeReady waits for the kubelet's node to report Ready.
func waitNodeReady(ctx context.Context, c client.Client, timeout time.Duration) error {
	var last string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		var n corev1.Node
		if err := c.Get(ctx, client.ObjectKey{Name: nodeName}, &n); err != nil {
			last = err.Error()
			continue
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				if cond.Status == corev1.ConditionTrue {
					return nil
				}
				last = cond.Reason + ": " + cond.Message
			}
		}
	}
	return fmt.Errorf("node %s not Ready after %s: %s", nodeName, timeout, last)
}

// installOnCluster installs what users install on a cluster, as they
// would: MinIO as a Deployment, the MPI operator and blastfleet with
// helm from charts/, with the images built here. The campaigns'
// namespace enforces the restricted Pod Security Standard.
func (s *supervisor) installOnCluster(ctx context.Context, c client.Client, p paths, creds MinIOInfo) error {
	cfg, cc := s.cfg, s.cfg.Cluster
	for _, ns := range []string{clusterNamespace, cfg.Namespace} {
		obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if ns == cfg.Namespace {
			obj.Labels = restrictedLabels
		}
		if err := apply(ctx, c, obj); err != nil {
			return err
		}
	}
	s.step("namespace %s enforces the restricted Pod Security Standard", cfg.Namespace)
	// A stack started before keeps its objects in etcd: Kueue's webhooks
	// then see every Deployment written, so its pod (recreated by its
	// Deployment) must serve before anything else is applied.
	if err := c.Get(ctx, client.ObjectKey{Namespace: "kueue-system", Name: "kueue-controller-manager"}, &appsv1.Deployment{}); err == nil {
		if err := waitDeployment(ctx, c, "kueue-system", "kueue-controller-manager", 3*time.Minute); err != nil {
			return fmt.Errorf("Kueue (installed by an earlier up, its webhooks see every Deployment): %w", err)
		}
		if err := waitServiceAnswers(ctx, c, "kueue-system", "kueue-webhook-service", 443, 2*time.Minute); err != nil {
			return fmt.Errorf("Kueue's webhooks (installed by an earlier up): %w", err)
		}
		s.step("Kueue from the earlier up serves its webhooks")
	}
	if err := s.installMinIO(ctx, c, p, creds); err != nil {
		return err
	}
	if err := ensureSecret(ctx, c, cfg.Namespace, creds); err != nil {
		return err
	}
	s.step("MinIO pod ready at %s (bucket %s, Secret %s)", creds.Endpoint, creds.Bucket, creds.Secret)

	mpiVersion, err := chartAppVersion(filepath.Join(cc.Charts, "mpi-operator"))
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := s.helm(ctx, "mpi-operator", "mpi-operator", filepath.Join(cc.Charts, "mpi-operator"),
		"image.repository=localhost/blastfleet/mpi-operator", "image.tag="+cc.ImageTag); err != nil {
		return err
	}
	s.update(func(st *State) { st.Cluster.MPIOperator = "v" + strings.TrimPrefix(mpiVersion, "v") })
	s.step("Kubeflow MPI operator v%s installed with helm and running (%.1fs)", strings.TrimPrefix(mpiVersion, "v"), time.Since(t0).Seconds())
	// Kueue after the MPI operator: its MPIJob integration starts only
	// when the MPIJob CRD is there. Its chart asks for half a CPU; this
	// node has two.
	t0 = time.Now()
	if err := s.helm(ctx, "kueue", "kueue-system", cc.KueueChart,
		"controllerManager.manager.image.repository=localhost/blastfleet/kueue", "controllerManager.manager.image.tag="+cc.ImageTag,
		"controllerManager.manager.image.pullPolicy=IfNotPresent",
		"controllerManager.manager.resources.requests.cpu=100m", "controllerManager.manager.resources.requests.memory=128Mi"); err != nil {
		return err
	}
	s.step("Kueue %s installed with helm and running (%.1fs)", kueueVersion, time.Since(t0).Seconds())
	if cc.Argo != "" {
		// Before the operator: it runs campaigns of executor argo only
		// when the Workflow kind is there at its start.
		t0 = time.Now()
		if err := s.installArgo(ctx, c); err != nil {
			return fmt.Errorf("Argo Workflows: %w", err)
		}
		s.update(func(st *State) { st.Cluster.Argo = argowf.Version })
		s.step("Argo Workflows %s workflow controller running in namespace %s (%.1fs)", argowf.Version, argoNamespace, time.Since(t0).Seconds())
	}
	t0 = time.Now()
	if err := s.helm(ctx, "blastfleet", clusterNamespace, filepath.Join(cc.Charts, "blastfleet"),
		"image.repository=localhost/blastfleet/operator", "image.tag="+cc.ImageTag,
		"workerImage.repository=localhost/blastfleet/worker", "workerImage.tag="+cc.ImageTag,
		"operator.ledgerPollInterval="+cfg.LedgerPollInterval.D().String(),
		"operator.partitionTTL=1h",
		// Stores that name no endpoint (config/samples) are the stack's
		// MinIO, at its fixed cluster IP.
		"operator.defaultStore.endpoint="+creds.Endpoint,
		// MinIO is a Service of the cluster: an internal endpoint.
		"policy.allowInternalEndpoints=true"); err != nil {
		return err
	}
	s.step("blastfleet operator installed with helm and running (%.1fs)", time.Since(t0).Seconds())
	return nil
}

// restrictedLabels make a namespace enforce (and warn and audit) the
// restricted Pod Security Standard.
var restrictedLabels = map[string]string{
	"pod-security.kubernetes.io/enforce": "restricted",
	"pod-security.kubernetes.io/warn":    "restricted",
	"pod-security.kubernetes.io/audit":   "restricted",
}

// helm installs (or upgrades) a release and waits until it runs.
func (s *supervisor) helm(ctx context.Context, release, ns, chart string, set ...string) error {
	args := []string{"upgrade", "--install", release, chart, "--namespace", ns, "--create-namespace",
		"--kubeconfig", s.p.kubeconfig(), "--wait", "--timeout", "4m",
		// A cluster kept from before the chart rendered its CRDs holds
		// CRDs no release owns: the upgrade adopts them.
		"--take-ownership"}
	for _, v := range set {
		args = append(args, "--set", v)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.cfg.Cluster.Helm, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

func chartAppVersion(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return "", err
	}
	var ch struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(b, &ch); err != nil {
		return "", fmt.Errorf("%s/Chart.yaml: %w", dir, err)
	}
	return ch.AppVersion, nil
}

// installMinIO runs MinIO as users run it on a cluster: a Deployment of
// the image built here and a Service, its data on this machine in the
// stack's directory (a hostPath in the stack's own namespace), so a new
// pod finds what the last one stored.
func (s *supervisor) installMinIO(ctx context.Context, c client.Client, p paths, creds MinIOInfo) error {
	const uid = 65532
	if err := os.MkdirAll(p.minioData(), 0o750); err != nil {
		return err
	}
	if err := os.Chown(p.minioData(), uid, uid); err != nil {
		return err
	}
	if err := searchable(p.minioData()); err != nil {
		return fmt.Errorf("MinIO's pod runs as UID %d and keeps its data in %s: %w", uid, p.minioData(), err)
	}
	labels := map[string]string{"app.kubernetes.io/name": "minio", "app.kubernetes.io/managed-by": "blastfleet-dev"}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "minio-root", Namespace: clusterNamespace, Labels: labels},
		StringData: map[string]string{"MINIO_ROOT_USER": creds.AccessKey, "MINIO_ROOT_PASSWORD": creds.SecretKey},
	}
	no, yes := false, true
	hostPathType := corev1.HostPathDirectory
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "minio", Namespace: clusterNamespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					AutomountServiceAccountToken: &no,
					SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &yes, RunAsUser: ptr(int64(uid)), RunAsGroup: ptr(int64(uid)),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					Containers: []corev1.Container{{
						Name: "minio", Image: s.cfg.Cluster.image("minio"), ImagePullPolicy: corev1.PullIfNotPresent,
						Args:    []string{"server", "/data", "--address", ":9000", "--console-address", ":9001", "--quiet"},
						EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: secret.Name}}}},
						Env: []corev1.EnvVar{{Name: "MINIO_UPDATE", Value: "off"}, {Name: "MINIO_BROWSER", Value: "off"},
							{Name: "MINIO_PROMETHEUS_AUTH_TYPE", Value: "public"}, {Name: "HOME", Value: "/tmp"}},
						Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 9000}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/minio/health/ready", Port: intstr.FromInt32(9000)}},
							PeriodSeconds: 2},
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes,
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
						VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "tmp", MountPath: "/tmp"}},
					}},
					Volumes: []corev1.Volume{
						{Name: "data", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: p.minioData(), Type: &hostPathType}}},
						{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr(resource.MustParse("256Mi"))}}},
					},
				},
			},
		},
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "minio", Namespace: clusterNamespace, Labels: labels},
		Spec: corev1.ServiceSpec{Selector: labels, ClusterIP: minioClusterIP,
			Ports: []corev1.ServicePort{{Name: "http", Port: 9000, TargetPort: intstr.FromInt32(9000)}}},
	}
	for _, o := range []client.Object{secret, dep, svc} {
		if err := apply(ctx, c, o); err != nil {
			return err
		}
	}
	if err := waitDeployment(ctx, c, clusterNamespace, "minio", 2*time.Minute); err != nil {
		return err
	}
	if err := waitServiceAnswers(ctx, c, clusterNamespace, "minio", 9000, time.Minute); err != nil {
		return err
	}
	if err := ensureBucket(ctx, creds, strings.TrimPrefix(creds.Endpoint, "http://")); err != nil {
		return err
	}
	return ensureSamples(ctx, creds, strings.TrimPrefix(creds.Endpoint, "http://"))
}

func ptr[T any](v T) *T { return &v }

// waitDeployment waits until a Deployment's pods are all available.
func waitDeployment(ctx context.Context, c client.Client, ns, name string, timeout time.Duration) error {
	var last string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		var d appsv1.Deployment
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &d); err != nil {
			last = err.Error()
			continue
		}
		if d.Status.ObservedGeneration >= d.Generation && d.Status.AvailableReplicas >= 1 && d.Status.UpdatedReplicas == d.Status.Replicas {
			return nil
		}
		last = fmt.Sprintf("%d of %d available", d.Status.AvailableReplicas, d.Status.Replicas)
	}
	var pods corev1.PodList
	_ = c.List(ctx, &pods, client.InNamespace(ns))
	var why []string
	for _, pod := range pods.Items {
		for _, st := range pod.Status.ContainerStatuses {
			if w := st.State.Waiting; w != nil {
				why = append(why, pod.Name+": "+w.Reason+" "+w.Message)
			}
		}
		for _, cond := range pod.Status.Conditions {
			if cond.Status != corev1.ConditionTrue && cond.Message != "" {
				why = append(why, pod.Name+": "+cond.Message)
			}
		}
	}
	return fmt.Errorf("deployment %s/%s not available after %s (%s): %v", ns, name, timeout, last, why)
}

// watchPodTargets keeps Prometheus's engine targets to the running pods'
// metrics ports, every 2 s, until ctx ends.
func (s *supervisor) watchPodTargets(ctx context.Context, c client.Client) {
	tw := &targetsWriter{path: s.p.engineTargets()}
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		var pods corev1.PodList
		if err := c.List(ctx, &pods); err == nil {
			if err := tw.update(podTargets(pods.Items)); err != nil {
				s.log.Error(err, "engine targets")
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// searchable checks that every directory above dir lets others through
// (the execute bit), as a pod's non-root user needs for a hostPath.
func searchable(dir string) error {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("%s is not searchable by other users (mode %s): put the stack elsewhere (--dir) or chmod o+x it", d, fi.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// waitServiceAnswers waits until a TCP connection to the Service's
// address succeeds from this machine, through kube-proxy's rules: a pod
// is Ready before its endpoints reach them.
func waitServiceAnswers(ctx context.Context, c client.Client, ns, name string, port int, timeout time.Duration) error {
	var svc corev1.Service
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &svc); err != nil {
		return err
	}
	addr := net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(port))
	var last error
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		last = err
	}
	return fmt.Errorf("Service %s/%s at %s does not answer after %s: %w", ns, name, addr, timeout, last)
}
