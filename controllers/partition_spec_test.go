package controllers

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
)

func TestPartitionSpecRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		campaign  *campaignBuilder
		index     int
		restart   int
		wantName  string
		wantRanks int32
		wantPorts []string
		suspended bool
	}{
		// Ranks: a searching rank per slot, and the master; the first
		// pod runs the master beside its slots, so pods have a port more.
		{name: "first", campaign: aCampaign(), wantName: "camp-p0-r0", wantRanks: 3, wantPorts: []string{"metrics", "metrics-1"}},
		{name: "replacement", campaign: aCampaign(), index: 3, restart: 2, wantName: "camp-p3-r2", wantRanks: 3, wantPorts: []string{"metrics", "metrics-1"}},
		{name: "slots", campaign: aCampaign().partitions(1, 4, 3), wantName: "camp-p0-r0", wantRanks: 13,
			wantPorts: []string{"metrics", "metrics-1", "metrics-2", "metrics-3"}},
		{name: "one slot", campaign: aCampaign().partitions(1, 1, 1), wantName: "camp-p0-r0", wantRanks: 2, wantPorts: []string{"metrics", "metrics-1"}},
		{name: "kueue", campaign: aCampaign().queue("team"), wantName: "camp-p0-r0", wantRanks: 3, wantPorts: []string{"metrics", "metrics-1"}, suspended: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewPartitionSpec(tc.campaign.request(tc.index, tc.restart))
			if s.Name != tc.wantName || s.Namespace != "ns" {
				t.Errorf("name %s/%s, want ns/%s", s.Namespace, s.Name, tc.wantName)
			}
			if s.Ranks() != tc.wantRanks {
				t.Errorf("ranks %d, want %d", s.Ranks(), tc.wantRanks)
			}
			want := []string{"blastfleet-engine", "--campaign", "s3://bucket/ns/camp", "--partition-id", tc.wantName,
				"--strategy", "merged", "--cache-dir", "/scratch/shards"}
			if !slices.Equal(s.Engine.Argv(), want) {
				t.Errorf("command %q, want %q", s.Engine.Argv(), want)
			}
			var ports []string
			for i, p := range s.Ports {
				ports = append(ports, p.Name)
				if p.ContainerPort != int32(enginemetrics.DefaultPort+i) {
					t.Errorf("port %s is %d, want %d", p.Name, p.ContainerPort, enginemetrics.DefaultPort+i)
				}
			}
			if !slices.Equal(ports, tc.wantPorts) {
				t.Errorf("ports %q, want %q", ports, tc.wantPorts)
			}
			if s.Suspended != tc.suspended || (s.Labels[LabelKueueQueue] != "") != tc.suspended {
				t.Errorf("suspended %v with queue label %q, want suspended %v", s.Suspended, s.Labels[LabelKueueQueue], tc.suspended)
			}
		})
	}
}

func TestPartitionSpecLabels(t *testing.T) {
	s := NewPartitionSpec(aCampaign().request(1, 2))
	for k, v := range map[string]string{LabelCampaign: "camp", LabelPartition: "1", LabelRestart: "2", LabelGeneration: "3", LabelComponent: componentPart} {
		if s.Labels[k] != v {
			t.Errorf("label %s=%q, want %q", k, s.Labels[k], v)
		}
	}
	// Pods keep the labels a replacement shares, so the PodMonitor and
	// NetworkPolicy selectors match every restart.
	if want := map[string]string{LabelCampaign: "camp", LabelPartition: "1"}; !equality.Semantic.DeepEqual(s.PodLabels, want) {
		t.Errorf("pod labels %v, want %v", s.PodLabels, want)
	}
}

// Every rank learns its storage, metrics port and run labels from Env;
// credentials only by reference.
func TestPartitionSpecEnv(t *testing.T) {
	s := NewPartitionSpec(aCampaign().request(0, 1))
	env := envOf(t, s.EnvFor(s.Engine))
	expectEnv(t, env, map[string]string{"AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": "http://minio:9000",
		enginemetrics.PortBaseEnv: "9090", enginemetrics.NamespaceEnv: "ns", enginemetrics.CampaignEnv: "camp", enginemetrics.PartitionEnv: "camp-p0-r1"})
	for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		if e := env[name]; e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "creds" {
			t.Errorf("%s is %+v, want a reference to Secret creds", name, e)
		}
	}
}

// The shard cache lives on the scratch emptyDir, which the engine's
// container mounts.
func TestPartitionSpecVolumes(t *testing.T) {
	s := NewPartitionSpec(aCampaign().request(0, 0))
	if len(s.Volumes) != 1 || s.Volumes[0].EmptyDir == nil || len(s.VolumeMounts) != 1 ||
		s.VolumeMounts[0].Name != s.Volumes[0].Name || s.VolumeMounts[0].MountPath != scratchDir {
		t.Errorf("volumes %+v mounted %+v, want one emptyDir at %s", s.Volumes, s.VolumeMounts, scratchDir)
	}
}

func TestPartitionSpecPodTemplate(t *testing.T) {
	tol := corev1.Toleration{Key: "blast", Operator: corev1.TolerationOpExists}
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("2")}}
	s := NewPartitionSpec(aCampaign().placement("batch", map[string]string{"pool": "blast"}, tol).resources(res).request(0, 0))
	// The campaign's CPU request stays; the memory it leaves out is
	// defaulted (sizeWorkers), so the pod is not BestEffort.
	if want := (corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("2"), corev1.ResourceMemory: mustQuantity("768Mi")},
		Limits: corev1.ResourceList{corev1.ResourceMemory: mustQuantity("768Mi")}}); !sameResources(s.Resources, want) {
		t.Errorf("resources %v, want %v", s.Resources, want)
	}
	pod := s.PodTemplate(corev1.Container{Name: "c"})
	if pod.Spec.PriorityClassName != "batch" || pod.Spec.NodeSelector["pool"] != "blast" || len(pod.Spec.Tolerations) != 1 ||
		pod.Labels[LabelPartition] != "0" || len(pod.Spec.Containers) != 1 || pod.Spec.Containers[0].Name != "c" {
		t.Errorf("pod template %+v", pod)
	}
}
