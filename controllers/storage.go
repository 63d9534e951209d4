package controllers

import (
	"context"
	"fmt"
	"net/url"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get

// StoreOpener opens object storage with credentials read from a Secret,
// anonymously, or with the operator's own identity.
type StoreOpener struct {
	// Secrets reads Secrets (and caBundle ConfigMaps) uncached, so the
	// operator needs only get on them, never list or watch.
	Secrets client.Reader
	// Policy decides which endpoints may be reached and which Secrets
	// may be read as credentials, before either happens.
	Policy policy.Policy
	// CABundle is a PEM file of authorities the operator trusts for every
	// store beside the system's (--ca-bundle), as well as a store's own
	// caBundle.
	CABundle string
	// STSEndpoint is where web identity tokens are exchanged, the
	// operator's and its pods' (--sts-endpoint); empty is AWS STS. Never
	// a store's endpoint: that is the author's choice.
	STSEndpoint string
	// DefaultEndpoint is the endpoint of stores that name none and are not
	// anonymous (--default-store-endpoint; empty: AWS S3). The policy
	// allows it: the administrator chose it.
	DefaultEndpoint string
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
	if err := o.endpointAllowed("endpoint", st.Endpoint); err != nil {
		return objstore.S3Config{}, err
	}
	cfg := objstore.S3Config{Endpoint: "s3.amazonaws.com", Secure: true, Region: st.Region, CABundle: o.CABundle}
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
	if ca := st.CABundle; ca != nil {
		pem, err := o.caBundle(ctx, namespace, "caBundle", ca)
		if err != nil {
			return cfg, err
		}
		cfg.CAPEM = pem
	}
	ref := st.CredentialsSecretRef
	switch {
	case st.Anonymous:
		cfg.Credentials = objstore.CredentialsAnonymous
		return cfg, nil
	case ref == nil:
		// The operator's own identity, not the campaign's service
		// account: allowed only when the administrator says so.
		if err := o.Policy.OperatorIdentity("credentialsSecretRef"); err != nil {
			return cfg, err
		}
		if err := o.identityEndpointAllowed("endpoint", st.Endpoint); err != nil {
			return cfg, err
		}
		cfg.Credentials, cfg.STSEndpoint = objstore.CredentialsIdentity, o.STSEndpoint
		return cfg, nil
	}
	sec, err := o.credentialsSecret(ctx, namespace, "credentialsSecretRef", ref)
	if err != nil {
		return cfg, err
	}
	idKey, secretKey := secretKeys(ref)
	cfg.AccessKey, cfg.SecretKey = string(sec.Data[idKey]), string(sec.Data[secretKey])
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return cfg, fmt.Errorf("credentials Secret %s/%s has no %s or %s", namespace, ref.Name, idKey, secretKey)
	}
	return cfg, nil
}

// caBundle reads a store's CA bundle from its ConfigMap, if the policy
// lets it be used.
func (o StoreOpener) caBundle(ctx context.Context, namespace, field string, ref *v1alpha1.ConfigMapKeyRef) ([]byte, error) {
	var cm corev1.ConfigMap
	if err := o.Secrets.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, &cm); err != nil {
		return nil, fmt.Errorf("%s: ConfigMap %s/%s: %w", field, namespace, ref.Name, err)
	}
	if err := o.Policy.CABundleConfigMap(field, ref.Name, &cm); err != nil {
		return nil, err
	}
	key := caKey(ref)
	pem := cm.Data[key]
	if pem == "" {
		return nil, fmt.Errorf("%s: ConfigMap %s/%s has no key %s", field, namespace, ref.Name, key)
	}
	return []byte(pem), nil
}

// CheckAccess applies the policy to a store the operator does not open
// itself (a campaign's queries, read by its pods): its endpoint, its
// Secret's opt-in label, the use of the pods' own identity.
func (o StoreOpener) CheckAccess(ctx context.Context, namespace, field string, st v1alpha1.ObjectStorage) error {
	if err := o.endpointAllowed(field+".endpoint", st.Endpoint); err != nil {
		return err
	}
	if ca := st.CABundle; ca != nil {
		if _, err := o.caBundle(ctx, namespace, field+".caBundle", ca); err != nil {
			return err
		}
	}
	ref := st.CredentialsSecretRef
	switch {
	case st.Anonymous:
		return nil
	case ref == nil:
		// The pods' identity: its credentials go with every request.
		return o.identityEndpointAllowed(field+".endpoint", st.Endpoint)
	}
	_, err := o.credentialsSecret(ctx, namespace, field+".credentialsSecretRef", ref)
	return err
}

// credentialsSecret reads the Secret ref names and checks it against the
// policy. A missing Secret is refused as an unlabelled one is, when the
// label is required: which Secrets exist is not for an author who may
// not read them to learn from a campaign's status.
func (o StoreOpener) credentialsSecret(ctx context.Context, namespace, field string, ref *v1alpha1.CredentialsSecretRef) (*corev1.Secret, error) {
	var sec corev1.Secret
	err := o.Secrets.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, &sec)
	switch {
	case apierrors.IsNotFound(err) && o.Policy.RequireCredentialsLabel:
		return nil, o.Policy.CredentialsSecret(field, ref.Name, nil)
	case err != nil:
		return nil, fmt.Errorf("%s: credentials Secret %s/%s: %w", field, namespace, ref.Name, err)
	}
	if err := o.Policy.CredentialsSecret(field, ref.Name, &sec); err != nil {
		return nil, err
	}
	return &sec, nil
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

// endpointAllowed applies the policy to an endpoint the author named; the
// default endpoint is the administrator's.
func (o StoreOpener) endpointAllowed(field, endpoint string) error {
	if o.isDefault(endpoint) {
		return nil
	}
	return o.Policy.Endpoint(field, endpoint)
}

// identityEndpointAllowed is endpointAllowed for a store reached with
// the operator's or the pods' own identity.
func (o StoreOpener) identityEndpointAllowed(field, endpoint string) error {
	if o.isDefault(endpoint) {
		return nil
	}
	return o.Policy.IdentityEndpoint(field, endpoint)
}
