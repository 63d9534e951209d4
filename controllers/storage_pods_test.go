package controllers

import (
	"slices"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
)

// A campaign with three stores: the output's Secret as AWS_*, the
// database on the pods' identity (its token exchanged at AWS STS, never
// at the store's endpoint), the
// queries anonymous behind a private CA. Each reaches planning and every
// rank (forwarded by mpirun -x, the CA mounted on the workers), and no
// value of a credential is in any object.
func TestCampaignStorageRoles(t *testing.T) {
	b := aCampaign()
	b.c.Spec.Partitions.ServiceAccountName = "blast-irsa"
	b.c.Spec.Queries = v1alpha1.Queries{ObjectReference: v1alpha1.ObjectReference{Key: "q.fa"},
		Storage: &v1alpha1.ObjectStorage{Endpoint: "https://public.example.org", Bucket: "pub", Prefix: "sets", Anonymous: true,
			CABundle: &v1alpha1.ConfigMapKeyRef{Name: "corp-ca"}}}
	db := &v1alpha1.BlastDatabase{Spec: v1alpha1.BlastDatabaseSpec{Storage: v1alpha1.ObjectStorage{
		Endpoint: "https://dbs.example.org", Region: "eu-west-1", Bucket: "dbs"}}}
	req := b.request(0, 0)
	req.Database = db
	s := NewPartitionSpec(req)

	env := envOf(t, s.Env)
	expectEnv(t, env, map[string]string{
		"AWS_ENDPOINT_URL":                     "http://minio:9000",
		"BLASTFLEET_DATABASE_AWS_ENDPOINT_URL": "https://dbs.example.org",
		"BLASTFLEET_DATABASE_AWS_REGION":       "eu-west-1",
		"BLASTFLEET_DATABASE_S3_CREDENTIALS":   "identity",
		"BLASTFLEET_QUERIES_AWS_ENDPOINT_URL":  "https://public.example.org",
		"BLASTFLEET_QUERIES_S3_CREDENTIALS":    "anonymous",
		"BLASTFLEET_QUERIES_AWS_CA_BUNDLE":     "/etc/blastfleet/ca/queries/ca.pem",
	})
	for name := range env {
		if strings.HasSuffix(name, "AWS_ENDPOINT_URL_STS") {
			t.Errorf("%s=%s: the pods' token would go to an endpoint the author chose", name, env[name].Value)
		}
		if strings.HasPrefix(name, "BLASTFLEET_DATABASE_AWS_ACCESS") || strings.HasPrefix(name, "BLASTFLEET_QUERIES_AWS_ACCESS") {
			t.Errorf("%s set for a store without a Secret", name)
		}
	}
	if e := env["AWS_ACCESS_KEY_ID"]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef.Name != "creds" || e.Value != "" {
		t.Errorf("output keys: %+v", e)
	}
	if _, ok := env["BLASTFLEET_S3_CREDENTIALS"]; ok {
		t.Error("the output has a Secret, yet a credentials source is set")
	}
	if s.ServiceAccountName != "blast-irsa" {
		t.Errorf("service account %q", s.ServiceAccountName)
	}

	obj, err := mpijob.Executor{}.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	job := obj.(*kubeflow.MPIJob)
	launcher := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeLauncher].Template
	worker := job.Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template
	for _, name := range []string{"BLASTFLEET_DATABASE_S3_CREDENTIALS", "BLASTFLEET_QUERIES_AWS_CA_BUNDLE", "AWS_SECRET_ACCESS_KEY"} {
		if !slices.Contains(launcher.Spec.Containers[0].Args, name) {
			t.Errorf("mpirun does not forward %s: %v", name, launcher.Spec.Containers[0].Args)
		}
	}
	for _, p := range []corev1.PodSpec{launcher.Spec, worker.Spec} {
		if p.ServiceAccountName != "blast-irsa" {
			t.Errorf("pod service account %q", p.ServiceAccountName)
		}
	}
	if !slices.ContainsFunc(worker.Spec.Volumes, func(v corev1.Volume) bool {
		return v.ConfigMap != nil && v.ConfigMap.Name == "corp-ca" && v.ConfigMap.Items[0].Key == "ca.crt"
	}) || !slices.ContainsFunc(worker.Spec.Containers[0].VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.MountPath == "/etc/blastfleet/ca/queries" && m.ReadOnly
	}) {
		t.Errorf("worker lacks the queries' CA: %+v %+v", worker.Spec.Volumes, worker.Spec.Containers[0].VolumeMounts)
	}

	plan := mustPlanJob(t, b.build(), anySearch, db, "s3://bucket/ns/camp", "img").Spec.Template.Spec
	if plan.ServiceAccountName != "blast-irsa" || !slices.Contains(plan.Containers[0].Args, "s3://pub/sets/q.fa") {
		t.Errorf("planning Job: service account %q, args %v", plan.ServiceAccountName, plan.Containers[0].Args)
	}
	penv := map[string]string{}
	for _, e := range plan.Containers[0].Env {
		penv[e.Name] = e.Value
	}
	if penv["BLASTFLEET_QUERIES_S3_CREDENTIALS"] != "anonymous" || penv["BLASTFLEET_DATABASE_AWS_ENDPOINT_URL"] != "https://dbs.example.org" ||
		len(plan.Volumes) == 0 || len(plan.Containers[0].VolumeMounts) == 0 {
		t.Errorf("planning Job storage: env %v volumes %v", penv, plan.Volumes)
	}
}

// A database on its pods' identity behind a private CA: the sharding
// pods run as its service account, know to use their identity, exchange
// its token at the administrator's STS endpoint (never the store's, the
// author's choice), and trust the mounted CA.
func TestDatabaseJobStorage(t *testing.T) {
	db := &v1alpha1.BlastDatabase{Spec: v1alpha1.BlastDatabaseSpec{Type: "prot", ServiceAccountName: "db-irsa",
		Storage: v1alpha1.ObjectStorage{Endpoint: "https://minio.corp:9000", Bucket: "dbs",
			CABundle: &v1alpha1.ConfigMapKeyRef{Name: "corp-ca", Key: "root.pem"}}}}
	db.Name, db.Namespace = "sprot", "ns"
	spec := shardingJob(db, "s3://dbs/sprot.fa", "s3://dbs/ns/sprot", 2, "img").Spec.Template.Spec
	for _, e := range spec.Containers[0].Env {
		if strings.HasSuffix(e.Name, "AWS_ENDPOINT_URL_STS") {
			t.Errorf("%s=%s without an administrator's STS endpoint", e.Name, e.Value)
		}
	}
	podWithSTS(&spec, "https://sts.corp:8443")
	env := map[string]string{}
	for _, e := range spec.Containers[0].Env {
		if e.ValueFrom != nil {
			t.Errorf("%s from a Secret, but the storage names none", e.Name)
		}
		env[e.Name] = e.Value
	}
	for name, want := range map[string]string{"BLASTFLEET_S3_CREDENTIALS": "identity", "AWS_ENDPOINT_URL_STS": "https://sts.corp:8443",
		"AWS_CA_BUNDLE": "/etc/blastfleet/ca/output/ca.pem"} {
		if env[name] != want {
			t.Errorf("%s=%q, want %q", name, env[name], want)
		}
	}
	if spec.ServiceAccountName != "db-irsa" || !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
		return v.ConfigMap != nil && v.ConfigMap.Name == "corp-ca" && v.ConfigMap.Items[0].Key == "root.pem"
	}) || !slices.ContainsFunc(spec.Containers[0].VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/etc/blastfleet/ca/output" }) {
		t.Errorf("service account %q, volumes %+v, mounts %+v", spec.ServiceAccountName, spec.Volumes, spec.Containers[0].VolumeMounts)
	}
}

// envOf is a container's environment by name; a variable set twice fails
// the test.
func envOf(t *testing.T, vars []corev1.EnvVar) map[string]corev1.EnvVar {
	t.Helper()
	env := map[string]corev1.EnvVar{}
	for _, e := range vars {
		if _, dup := env[e.Name]; dup {
			t.Errorf("%s set twice", e.Name)
		}
		env[e.Name] = e
	}
	return env
}

// expectEnv checks the plain values of variables.
func expectEnv(t *testing.T, env map[string]corev1.EnvVar, want map[string]string) {
	t.Helper()
	for name, v := range want {
		if env[name].Value != v {
			t.Errorf("%s=%q, want %q", name, env[name].Value, v)
		}
	}
}

// expectNoEnv fails the test for each variable named with prefix.
func expectNoEnv(t *testing.T, env map[string]corev1.EnvVar, prefix, why string) {
	t.Helper()
	for name := range env {
		if strings.HasPrefix(name, prefix) {
			t.Errorf("%s set: %s", name, why)
		}
	}
}
