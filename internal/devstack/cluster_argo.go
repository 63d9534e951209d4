package devstack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// argoNamespace holds Argo's workflow controller, as Argo's own
// manifests (cluster-install) put it.
const argoNamespace = "argo"

// argoExecutorConfig is the workflow controller's ConfigMap entry for
// the containers Argo adds to every step's pod (init and wait): what the
// restricted Pod Security Standard of the campaigns' namespace asks, and
// small requests (the node has two CPUs).
const argoExecutorConfig = `resources:
  requests:
    cpu: 10m
    memory: 32Mi
securityContext:
  runAsNonRoot: true
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities:
    drop: [ALL]
  seccompProfile:
    type: RuntimeDefault
`

// installArgo installs Argo Workflows as its cluster-install manifests
// do: the CRDs and the controller's RBAC from the module (copied by
// hack/install-argo.sh), its ServiceAccount and ConfigMap, and the
// workflow controller as a Deployment of the image built here, which is
// also the executor image of every step.
func (s *supervisor) installArgo(ctx context.Context, c client.Client) error {
	dir := s.cfg.Cluster.Argo
	if err := apply(ctx, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: argoNamespace}}); err != nil {
		return err
	}
	for _, sub := range []string{"crds", "rbac"} {
		objs, err := readManifests(filepath.Join(dir, sub))
		if err != nil {
			return fmt.Errorf("Argo's manifests: %w", err)
		}
		for _, o := range objs {
			inArgoNamespace(o)
			if err := apply(ctx, c, o); err != nil {
				return fmt.Errorf("Argo's %s: %w", sub, err)
			}
		}
	}
	if err := waitCRDs(ctx, c, 30*time.Second, "workflows.argoproj.io", "workflowtaskresults.argoproj.io", "workflowtemplates.argoproj.io"); err != nil {
		return err
	}
	image := s.cfg.Cluster.image("argo")
	labels := map[string]string{"app": "workflow-controller", "app.kubernetes.io/managed-by": "blastfleet-dev"}
	no, yes := false, true
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "argo", Namespace: argoNamespace}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "workflow-controller-configmap", Namespace: argoNamespace},
			Data: map[string]string{"executor": argoExecutorConfig}},
		&appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "workflow-controller", Namespace: argoNamespace, Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{
						ServiceAccountName: "argo",
						SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &yes,
							SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
						Containers: []corev1.Container{{
							Name: "workflow-controller", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
							Command: []string{"/bin/workflow-controller"},
							Args: []string{"--configmap", "workflow-controller-configmap",
								"--executor-image", image, "--executor-image-pull-policy", string(corev1.PullIfNotPresent)},
							Env: []corev1.EnvVar{{Name: "LEADER_ELECTION_IDENTITY", ValueFrom: &corev1.EnvVarSource{
								FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
								// A step's pod deleted within this long of its start
								// is resubmitted rather than failing its node (10 s
								// by default, for informer lag on big clusters); on
								// one node 2 s is plenty, and a deletion then goes
								// through the step's retryStrategy as it would on a
								// cluster after the first seconds.
								{Name: "RECENTLY_STARTED_POD_DURATION", Value: "2s"}},
							Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9090}, {Name: "healthz", ContainerPort: 6060}},
							Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
								corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")}},
							SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes,
								Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
						}},
					},
				},
			},
		},
	}
	for _, o := range objs {
		if err := apply(ctx, c, o); err != nil {
			return err
		}
	}
	return waitDeployment(ctx, c, argoNamespace, "workflow-controller", 2*time.Minute)
}

// readManifests decodes every object of the YAML files in dir.
func readManifests(dir string) ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no manifests in %s (hack/install-argo.sh copies them): %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			var m map[string]any
			if err := d.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if len(m) > 0 {
				out = append(out, &unstructured.Unstructured{Object: m})
			}
		}
	}
	return out, nil
}

// inArgoNamespace does what the namespace of Argo's kustomization does:
// namespaced objects and ServiceAccount subjects go to argoNamespace.
func inArgoNamespace(o *unstructured.Unstructured) {
	switch o.GetKind() {
	case "Role", "RoleBinding", "ServiceAccount", "ConfigMap", "Deployment":
		o.SetNamespace(argoNamespace)
	}
	subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
	for i, s := range subjects {
		if m, ok := s.(map[string]any); ok && m["kind"] == "ServiceAccount" {
			m["namespace"] = argoNamespace
			subjects[i] = m
		}
	}
	if len(subjects) > 0 {
		_ = unstructured.SetNestedSlice(o.Object, subjects, "subjects")
	}
}

// waitCRDs waits until the CRDs are Established.
func waitCRDs(ctx context.Context, c client.Client, timeout time.Duration, names ...string) error {
	for _, n := range names {
		var last string
		for deadline := time.Now().Add(timeout); ; time.Sleep(200 * time.Millisecond) {
			crd := &unstructured.Unstructured{}
			crd.SetAPIVersion("apiextensions.k8s.io/v1")
			crd.SetKind("CustomResourceDefinition")
			if err := c.Get(ctx, client.ObjectKey{Name: n}, crd); err != nil {
				last = err.Error()
			} else if established(crd) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("CRD %s not Established after %s: %s", n, timeout, last)
			}
		}
	}
	return nil
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
