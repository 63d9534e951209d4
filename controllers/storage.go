package controllers

import (
	"context"
	"fmt"
	"net/url"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/objstore"
	"github.com/blastfleet/blastfleet/internal/policy"
)

// StoreOpener opens object storage with credentials read from a Secret.
type StoreOpener struct {
	// Secrets reads Secrets uncached, so the operator needs only get on
	// them, never list or watch.
	Secrets client.Reader
	// Policy decides which endpoints may be reached and which Secrets
	// may be read as credentials, before either happens.
	Policy policy.Policy
}

// Open opens bucket/prefix on st's endpoint with its credentials.
func (o StoreOpener) Open(ctx context.Context, namespace string, st v1alpha1.ObjectStorage, bucket, prefix string) (objstore.Store, error) {
	cfg, err := o.config(ctx, namespace, st)
	if err != nil {
		return nil, err
	}
	s, err := objstore.NewS3(cfg, bucket, prefix)
	if err != nil {
		return nil, fmt.Errorf("object storage %s: %w", cfg, err)
	}
	return s, nil
}

func (o StoreOpener) config(ctx context.Context, namespace string, st v1alpha1.ObjectStorage) (objstore.S3Config, error) {
	// The operator itself connects to the endpoint: check it first.
	if err := o.Policy.Endpoint("endpoint", st.Endpoint); err != nil {
		return objstore.S3Config{}, err
	}
	cfg := objstore.S3Config{Endpoint: "s3.amazonaws.com", Secure: true, Region: st.Region}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if st.Endpoint != "" {
		u, err := url.Parse(st.Endpoint)
		if err != nil || u.Host == "" {
			return cfg, fmt.Errorf("endpoint %q: want http(s)://host[:port]", st.Endpoint)
		}
		cfg.Endpoint, cfg.Secure, cfg.PathStyle = u.Host, u.Scheme == "https", true
	}
	ref := st.CredentialsSecretRef
	if ref == nil {
		return cfg, fmt.Errorf("credentialsSecretRef is not set")
	}
	var sec corev1.Secret
	if err := o.Secrets.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, &sec); err != nil {
		return cfg, fmt.Errorf("credentials Secret %s/%s: %w", namespace, ref.Name, err)
	}
	if err := o.Policy.CredentialsSecret("credentialsSecretRef", &sec); err != nil {
		return cfg, err
	}
	idKey, secretKey := secretKeys(ref)
	cfg.AccessKey, cfg.SecretKey = string(sec.Data[idKey]), string(sec.Data[secretKey])
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return cfg, fmt.Errorf("credentials Secret %s/%s has no %s or %s", namespace, ref.Name, idKey, secretKey)
	}
	return cfg, nil
}

func secretKeys(ref *v1alpha1.CredentialsSecretRef) (id, secret string) {
	id, secret = ref.AccessKeyIDKey, ref.SecretAccessKeyKey
	if id == "" {
		id = "AWS_ACCESS_KEY_ID"
	}
	if secret == "" {
		secret = "AWS_SECRET_ACCESS_KEY"
	}
	return id, secret
}

// storageEnv is how a pod reaches st: the endpoint and region as plain
// variables, the keys by reference to the Secret, so credentials appear
// in neither arguments nor the objects the operator writes.
func storageEnv(st v1alpha1.ObjectStorage) []corev1.EnvVar {
	env := []corev1.EnvVar{{Name: "AWS_REGION", Value: st.Region}}
	if env[0].Value == "" {
		env[0].Value = "us-east-1"
	}
	if st.Endpoint != "" {
		env = append(env, corev1.EnvVar{Name: "AWS_ENDPOINT_URL", Value: st.Endpoint})
	}
	if ref := st.CredentialsSecretRef; ref != nil {
		id, secret := secretKeys(ref)
		for _, kv := range [][2]string{{"AWS_ACCESS_KEY_ID", id}, {"AWS_SECRET_ACCESS_KEY", secret}} {
			env = append(env, corev1.EnvVar{Name: kv[0], ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: ref.Name}, Key: kv[1]},
			}})
		}
	}
	return env
}

// storageEnvNames are the variables storageEnv sets, for mpirun -x.
func storageEnvNames(st v1alpha1.ObjectStorage) []string {
	var names []string
	for _, e := range storageEnv(st) {
		names = append(names, e.Name)
	}
	return names
}
