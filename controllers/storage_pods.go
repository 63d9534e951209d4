package controllers

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// caMountDir is where a store's caBundle is mounted in a pod, one folder
// per role.
const caMountDir = "/etc/blastfleet/ca"

// podStorage is how a pod reaches its stores: variables (each store's
// with its role's prefix, docs/engine.md), and the caBundle volumes
// they name.
type podStorage struct {
	Env     []corev1.EnvVar
	Volumes []corev1.Volume
	Mounts  []corev1.VolumeMount
}

// campaignStorage is what a campaign's pods (planning, partitions) need:
// the output store as the unprefixed AWS_* variables, the database's
// store (db may be nil in tests of other things) and the queries' own
// store when they have one.
func campaignStorage(c *v1alpha1.SearchCampaign, db *v1alpha1.BlastDatabase) podStorage {
	var ps podStorage
	ps.add(objstore.RoleOutput, c.Spec.Output)
	if db != nil {
		ps.add(objstore.RoleDatabase, db.Spec.Storage)
	}
	if q := c.Spec.Queries.Storage; q != nil {
		ps.add(objstore.RoleQueries, *q)
	}
	return ps
}

// replicaRole is the role of a database's n-th replica (1-based):
// BLASTFLEET_REPLICA<n>_AWS_* variables, as the engine's n-th
// --database-replica and the copy's --to read them.
func replicaRole(n int) objstore.Role {
	return objstore.Role("REPLICA" + strconv.Itoa(n))
}

// singleStorage is one store as the output role, for pods that reach
// only it (sharding Jobs).
func singleStorage(st v1alpha1.ObjectStorage) podStorage {
	var ps podStorage
	ps.add(objstore.RoleOutput, st)
	return ps
}

// add is st as role: the endpoint and region as plain variables, the
// keys by reference to the Secret, so credentials appear in neither
// arguments nor the objects the operator writes; without a Secret, the
// credentials variable says anonymous or identity (the pod's service
// account, through the standard chain). Its token exchange never goes to
// the store's endpoint, which the author chose: to AWS STS, or the
// administrator's STS endpoint (withSTS).
func (ps *podStorage) add(role objstore.Role, st v1alpha1.ObjectStorage) {
	p := role.EnvPrefix()
	region := st.Region
	if region == "" {
		region = "us-east-1"
	}
	ps.Env = append(ps.Env, corev1.EnvVar{Name: p + "AWS_REGION", Value: region})
	if st.Endpoint != "" {
		ps.Env = append(ps.Env, corev1.EnvVar{Name: p + "AWS_ENDPOINT_URL", Value: st.Endpoint})
	}
	switch ref := st.CredentialsSecretRef; {
	case st.Anonymous:
		ps.Env = append(ps.Env, corev1.EnvVar{Name: role.CredentialsEnv(), Value: string(objstore.CredentialsAnonymous)})
	case ref == nil:
		ps.Env = append(ps.Env, corev1.EnvVar{Name: role.CredentialsEnv(), Value: string(objstore.CredentialsIdentity)})
	default:
		id, secret := secretKeys(ref)
		for _, kv := range [][2]string{{"AWS_ACCESS_KEY_ID", id}, {"AWS_SECRET_ACCESS_KEY", secret}} {
			ps.Env = append(ps.Env, corev1.EnvVar{Name: p + kv[0], ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: ref.Name}, Key: kv[1]},
			}})
		}
	}
	if ca := st.CABundle; ca != nil {
		name := "ca-" + roleName(role)
		dir := caMountDir + "/" + roleName(role)
		ps.Volumes = append(ps.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: ca.Name},
			Items:                []corev1.KeyToPath{{Key: caKey(ca), Path: "ca.pem"}},
		}}})
		ps.Mounts = append(ps.Mounts, corev1.VolumeMount{Name: name, MountPath: dir, ReadOnly: true})
		ps.Env = append(ps.Env, corev1.EnvVar{Name: p + "AWS_CA_BUNDLE", Value: dir + "/ca.pem"})
	}
}

// withSTS is env with AWS_ENDPOINT_URL_STS, where every store of the pod
// exchanges the pod's web identity token (the engine reads the
// unprefixed variable for every role): the administrator's --sts-endpoint,
// or nothing (AWS STS).
func withSTS(env []corev1.EnvVar, endpoint string) []corev1.EnvVar {
	if endpoint == "" {
		return env
	}
	return setEnv(env, "AWS_ENDPOINT_URL_STS", endpoint)
}

// podWithSTS is withSTS for every container of a pod.
func podWithSTS(spec *corev1.PodSpec, endpoint string) {
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			cs[i].Env = withSTS(cs[i].Env, endpoint)
		}
	}
}

// roleName names a role in volume names and paths.
func roleName(r objstore.Role) string {
	if r == objstore.RoleOutput {
		return "output"
	}
	return strings.ToLower(string(r))
}

func caKey(ref *v1alpha1.ConfigMapKeyRef) string {
	if ref.Key == "" {
		return "ca.crt"
	}
	return ref.Key
}
