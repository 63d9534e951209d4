package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// kwokVersion is the kwok whose stages the bench loads; hack/install-kwok.sh
// builds the binary at the same version (KWOK_VERSION overrides both).
const kwokVersion = "v0.8.0"

// kwokStages are the stage files of kwok's module the bench runs: nodes
// become Ready and keep their leases, pods on them become Running and go
// when deleted. kwok's pod-complete stage is left out on purpose: it would
// finish a Job's pod as soon as it runs, and here the stand-in engine says
// when a launcher is done (after it did the partition's work).
var kwokStages = []string{
	"kustomize/stage/node/fast/node-initialize.yaml",
	"kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
	"kustomize/stage/pod/fast/pod-ready.yaml",
	"kustomize/stage/pod/fast/pod-delete.yaml",
}

// kwokNodeAnnotation marks the nodes kwok manages.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

func kwokModuleDir(root string) (string, error) {
	v := os.Getenv("KWOK_VERSION")
	if v == "" {
		v = kwokVersion
	}
	cmd := exec.Command("go", "mod", "download", "-json", "sigs.k8s.io/kwok@"+v)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download sigs.k8s.io/kwok@%s: %w", v, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download sigs.k8s.io/kwok@%s says %q", v, out)
	}
	return m.Dir, nil
}

// kwokProc is kwok managing the nodes annotated kwokNodeAnnotation=fake,
// with the stages above.
func kwokProc(dir string, b *binaries, kubeconfig string) (*proc, error) {
	var docs []string
	for _, s := range kwokStages {
		data, err := os.ReadFile(filepath.Join(b.kwokStages, s))
		if err != nil {
			return nil, fmt.Errorf("kwok stage: %w", err)
		}
		docs = append(docs, strings.TrimSpace(string(data)))
	}
	// Pods' stages applied 32 at a time, not kwok's 4: at thousands of
	// pods those would be what the bench measures. A configuration given
	// takes no defaults, so the other workers are spelled out.
	docs = append(docs, `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  podPlayStageParallelism: 32
  nodePlayStageParallelism: 8
  nodeLeaseParallelism: 4
  podsOnNodeSyncParallelism: 4`)
	cfg := filepath.Join(dir, "kwok.yaml")
	if err := os.WriteFile(cfg, []byte(strings.Join(docs, "\n---\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	return &proc{
		name: "kwok", path: b.kwok, log: filepath.Join(dir, "kwok.log"),
		args: []string{
			"--kubeconfig=" + kubeconfig,
			"--config=" + cfg,
			"--manage-all-nodes=false",
			"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
			"--node-lease-duration-seconds=40",
			// A line per lease renewal and stage would be most of the machine's writes.
			"--v=WARN",
			"--cidr=10.128.0.0/10",
			"--node-ip=10.127.0.1",
		},
	}, nil
}

// createNodes creates n fake nodes, each with room for far more pods than
// the bench puts on it, so the scheduler spreads and never waits.
func createNodes(ctx context.Context, c client.Client, n int) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("256"),
		corev1.ResourceMemory: resource.MustParse("1Ti"),
		corev1.ResourcePods:   resource.MustParse("1000"),
	}
	for i := range n {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        fmt.Sprintf("kwok-node-%03d", i),
				Annotations: map[string]string{kwokNodeAnnotation: "fake"},
				Labels:      map[string]string{"type": "kwok", corev1.LabelHostname: fmt.Sprintf("kwok-node-%03d", i)},
			},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if err := c.Create(ctx, node); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", node.Name, err)
		}
	}
	return nil
}
