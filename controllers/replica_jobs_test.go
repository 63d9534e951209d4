package controllers

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// aReadyDatabase is a Ready database "sprot" in namespace ns, its store
// reached with Secret primary, with the replicas given.
func aReadyDatabase(replicas ...v1alpha1.DatabaseReplica) *v1alpha1.BlastDatabase {
	return &v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "sprot", Namespace: "ns", Generation: 1, UID: "uid-sprot"},
		Spec: v1alpha1.BlastDatabaseSpec{Type: v1alpha1.DatabaseProtein, Replicas: replicas,
			Storage: v1alpha1.ObjectStorage{Endpoint: "http://minio:9000", Bucket: "dbs", Prefix: "databases",
				CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "primary"}}},
		Status: v1alpha1.BlastDatabaseStatus{Phase: v1alpha1.DatabaseReady, ObservedGeneration: 1, Bytes: 4096,
			Location: "s3://dbs/databases/ns/sprot", Build: "builds/20261128-1",
			Conditions: []metav1.Condition{{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Ready", LastTransitionTime: metav1.Now()}}},
	}
}

// aReplica is a replica in bucket on far's MinIO; secret "" for the
// pods' identity.
func aReplica(name, bucket, secret string) v1alpha1.DatabaseReplica {
	r := v1alpha1.DatabaseReplica{Name: name, Storage: v1alpha1.ObjectStorage{Endpoint: "http://far:9000", Region: "eu-west-1", Bucket: bucket, Prefix: "copies"}}
	if secret != "" {
		r.Storage.CredentialsSecretRef = &v1alpha1.CredentialsSecretRef{Name: secret, AccessKeyIDKey: "id", SecretAccessKeyKey: "key"}
	}
	return r
}

// The copy Job runs `blastfleet db replicate --from --to` with the
// primary as the database role and the replica as REPLICA1, credentials
// by reference only, in a restricted pod labelled with its replica.
func TestReplicaJob(t *testing.T) {
	east := aReplica("east", "dbs-east", "east-creds")
	east.Storage.CABundle = &v1alpha1.ConfigMapKeyRef{Name: "far-ca"}
	db := aReadyDatabase(east)
	job := replicaJob(db, east, "worker:test")

	if !strings.HasPrefix(job.Name, "sprot-replica-east-") || len(job.Name) != len("sprot-replica-east-")+8 {
		t.Errorf("name %s, want sprot-replica-east-<8 hex>", job.Name)
	}
	for k, v := range map[string]string{LabelDatabase: "sprot", LabelReplica: "east", LabelComponent: componentReplica, LabelManagedBy: managedByValue} {
		if job.Labels[k] != v || job.Spec.Template.Labels[k] != v {
			t.Errorf("label %s: Job %q, pods %q, want %q", k, job.Labels[k], job.Spec.Template.Labels[k], v)
		}
	}
	pod := job.Spec.Template.Spec
	c := pod.Containers[0]
	want := []string{"db", "replicate", "--from", "s3://dbs/databases/ns/sprot", "--to", "s3://dbs-east/copies/ns/sprot"}
	if c.Name != "replicate" || c.Image != "worker:test" || !slices.Equal(c.Command, []string{"blastfleet"}) || !slices.Equal(c.Args, want) {
		t.Errorf("container %s %s %q %q, want replicate worker:test blastfleet %q", c.Name, c.Image, c.Command, c.Args, want)
	}

	env := envOf(t, c.Env)
	expectNoEnv(t, env, "AWS_", "the copy's stores are its two roles'")
	expectEnv(t, env, map[string]string{
		"BLASTFLEET_DATABASE_AWS_ENDPOINT_URL": "http://minio:9000",
		"BLASTFLEET_REPLICA1_AWS_ENDPOINT_URL": "http://far:9000",
		"BLASTFLEET_REPLICA1_AWS_REGION":       "eu-west-1",
		"BLASTFLEET_REPLICA1_AWS_CA_BUNDLE":    "/etc/blastfleet/ca/replica1/ca.pem",
	})
	for name, ref := range map[string][2]string{
		"BLASTFLEET_DATABASE_AWS_ACCESS_KEY_ID":     {"primary", "AWS_ACCESS_KEY_ID"},
		"BLASTFLEET_DATABASE_AWS_SECRET_ACCESS_KEY": {"primary", "AWS_SECRET_ACCESS_KEY"},
		"BLASTFLEET_REPLICA1_AWS_ACCESS_KEY_ID":     {"east-creds", "id"},
		"BLASTFLEET_REPLICA1_AWS_SECRET_ACCESS_KEY": {"east-creds", "key"},
	} {
		e := env[name]
		if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil ||
			e.ValueFrom.SecretKeyRef.Name != ref[0] || e.ValueFrom.SecretKeyRef.Key != ref[1] {
			t.Errorf("%s is %+v, want a reference to key %s of Secret %s", name, e, ref[1], ref[0])
		}
	}
	if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.ConfigMap != nil && v.ConfigMap.Name == "far-ca" }) {
		t.Errorf("volumes %+v: want the replica's CA bundle", pod.Volumes)
	}
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("pod security %+v, restart %s: want restricted, Never", sc, pod.RestartPolicy)
	}
	if _, ok := c.Resources.Requests[corev1.ResourceMemory]; !ok {
		t.Errorf("resources %v: want a memory request (never BestEffort)", c.Resources)
	}
}

// The Job's name changes with what it copies, and only then.
func TestReplicaHash(t *testing.T) {
	east := aReplica("east", "dbs-east", "east-creds")
	db := aReadyDatabase(east)
	base := replicaHash(db, east)
	if again := replicaHash(aReadyDatabase(east), aReplica("east", "dbs-east", "east-creds")); again != base {
		t.Errorf("hash %s then %s of the same replica", base, again)
	}
	moved := aReplica("east", "dbs-east", "east-creds")
	moved.Storage.Prefix = "elsewhere"
	rekeyed := aReplica("east", "dbs-east", "other-creds")
	rebuilt := aReadyDatabase(east)
	rebuilt.Status.Build = "builds/20261129-1"
	for name, h := range map[string]string{"prefix": replicaHash(db, moved), "credentials": replicaHash(db, rekeyed), "build": replicaHash(rebuilt, east)} {
		if h == base {
			t.Errorf("a changed %s keeps hash %s", name, h)
		}
	}
}
