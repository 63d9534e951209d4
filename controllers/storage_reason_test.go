package controllers

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
)

// A refusal by the policy reads as its own reason, wrapped or not.
func TestStorageReasonOfRefusals(t *testing.T) {
	v := &policy.Violation{Reason: policy.ReasonSecretNotAllowed, Field: "credentialsSecretRef", Msg: "no label"}
	for _, err := range []error{v, fmt.Errorf("opening: %w", v)} {
		if got := storageReason(err); got != policy.ReasonSecretNotAllowed {
			t.Errorf("storageReason(%v) = %s, want %s", err, got, policy.ReasonSecretNotAllowed)
		}
	}
}

// The opener checks the endpoint before reading the Secret, and the
// Secret's label before using its keys.
func TestStoreOpenerPolicy(t *testing.T) {
	secret := func(name string, labels map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labels},
			Data: map[string][]byte{"AWS_ACCESS_KEY_ID": []byte("id"), "AWS_SECRET_ACCESS_KEY": []byte("key")}}
	}
	reader := fake.NewClientBuilder().WithObjects(secret("plain", nil), secret("optin", map[string]string{v1alpha1.CredentialsLabel: "true"})).Build()
	o := StoreOpener{Secrets: reader, Policy: policy.Policy{RequireCredentialsLabel: true, Endpoints: []string{"minio.storage.svc"}}}
	st := func(endpoint, secret string) v1alpha1.ObjectStorage {
		return v1alpha1.ObjectStorage{Endpoint: endpoint, Bucket: "b", CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: secret}}
	}
	var refusals []string
	for _, c := range []struct {
		storage v1alpha1.ObjectStorage
		reason  string
	}{
		{st("http://minio.storage.svc:9000", "optin"), ""},
		{st("http://minio.storage.svc:9000", "plain"), policy.ReasonSecretNotAllowed},
		// A missing Secret reads as an unlabelled one, the same reason and
		// message: the author learns nothing of which Secrets exist.
		{st("http://minio.storage.svc:9000", "absent"), policy.ReasonSecretNotAllowed},
		{st("http://169.254.169.254", "optin"), policy.ReasonViolation},
		// The endpoint first: a refused endpoint never has its Secret read.
		{st("http://169.254.169.254", "absent"), policy.ReasonViolation},
	} {
		_, err := o.config(context.Background(), "ns", c.storage)
		if c.storage.Endpoint == "http://minio.storage.svc:9000" && c.reason != "" {
			refusals = append(refusals, strings.ReplaceAll(err.Error(), c.storage.CredentialsSecretRef.Name, "<name>"))
		}
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("%s with %s: %v", c.storage.Endpoint, c.storage.CredentialsSecretRef.Name, err)
		case c.reason != "" && storageReason(err) != c.reason:
			t.Errorf("%s with %s: %v (%s), want %s", c.storage.Endpoint, c.storage.CredentialsSecretRef.Name, err, storageReason(err), c.reason)
		}
	}
	if len(refusals) != 2 || refusals[0] != refusals[1] {
		t.Errorf("an unlabelled and a missing Secret read apart: %q", refusals)
	}
	// Not required, a missing Secret says so: every Secret is usable then.
	o.Policy.RequireCredentialsLabel = false
	if _, err := o.config(context.Background(), "ns", st("http://minio.storage.svc:9000", "absent")); storageReason(err) != "CredentialsSecretNotFound" {
		t.Errorf("missing Secret, no label required: %v (%s)", err, storageReason(err))
	}
}

// A store without a Secret is reached with an identity, whose web
// identity token is exchanged at AWS STS or the administrator's STS
// endpoint, never at the store's endpoint (the author's choice); and
// only a store on AWS or one the policy lists gets the identity's
// credentials at all.
func TestStoreOpenerIdentityNeverUsesAuthorsSTS(t *testing.T) {
	o := StoreOpener{Secrets: fake.NewClientBuilder().Build(),
		Policy: policy.Policy{AllowOperatorIdentity: true, Endpoints: []string{"minio.storage.svc", "*.amazonaws.com"}}}
	ident := func(endpoint string) v1alpha1.ObjectStorage {
		return v1alpha1.ObjectStorage{Endpoint: endpoint, Bucket: "b"}
	}
	for _, sts := range []string{"", "https://sts.corp.example"} {
		o.STSEndpoint = sts
		for _, endpoint := range []string{"", "https://s3.eu-west-1.amazonaws.com", "http://minio.storage.svc:9000"} {
			cfg, err := o.config(context.Background(), "ns", ident(endpoint))
			if err != nil {
				t.Errorf("%q: %v", endpoint, err)
				continue
			}
			if cfg.STSEndpoint != sts {
				t.Errorf("%q with --sts-endpoint %q: token exchanged at %q", endpoint, sts, cfg.STSEndpoint)
			}
		}
	}
	// Keys may go anywhere the list allows (none here: an empty list);
	// an identity's credentials only to AWS or a listed endpoint.
	o.Policy.Endpoints = nil
	for _, endpoint := range []string{"https://attacker.example", "http://minio.storage.svc:9000"} {
		if _, err := o.config(context.Background(), "ns", ident(endpoint)); storageReason(err) != policy.ReasonViolation {
			t.Errorf("operator's identity on %s: %v, want %s", endpoint, err, policy.ReasonViolation)
		}
		if err := o.CheckAccess(context.Background(), "ns", "spec.queries.storage", ident(endpoint)); storageReason(err) != policy.ReasonViolation ||
			!strings.Contains(err.Error(), "spec.queries.storage.endpoint") {
			t.Errorf("pods' identity on %s: %v, want %s", endpoint, err, policy.ReasonViolation)
		}
	}
	anon := ident("https://public.example.org")
	anon.Anonymous = true
	if err := o.CheckAccess(context.Background(), "ns", "spec.queries.storage", anon); err != nil {
		t.Errorf("anonymous store: %v", err)
	}
}

// The default policy (no endpoint list) refuses internal endpoints before
// anything is read or reached: the operator's own host, the cluster's
// Services and network, the cloud's metadata service.
func TestStoreOpenerRefusesInternalByDefault(t *testing.T) {
	optin := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "optin", Namespace: "ns", Labels: map[string]string{v1alpha1.CredentialsLabel: "true"}},
		Data: map[string][]byte{"AWS_ACCESS_KEY_ID": []byte("id"), "AWS_SECRET_ACCESS_KEY": []byte("key")}}
	o := StoreOpener{Secrets: fake.NewClientBuilder().WithObjects(optin).Build(), Policy: policy.Policy{RequireCredentialsLabel: true}}
	st := func(endpoint string) v1alpha1.ObjectStorage {
		return v1alpha1.ObjectStorage{Endpoint: endpoint, Bucket: "b", CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "optin"}}
	}
	for _, e := range []string{"http://169.254.169.254", "http://127.0.0.1:9000", "http://10.0.0.5:9000", "http://[fd00::5]:9000",
		"http://localhost:9000", "http://metadata.google.internal", "http://minio.storage.svc:9000", "http://kubernetes.default.svc.cluster.local", "http://minio:9000"} {
		if _, err := o.config(context.Background(), "ns", st(e)); storageReason(err) != policy.ReasonViolation || !strings.Contains(err.Error(), "--allow-internal-endpoints") {
			t.Errorf("%s: %v, want %s naming --allow-internal-endpoints", e, err, policy.ReasonViolation)
		}
		if err := o.CheckAccess(context.Background(), "ns", "spec.queries.storage", st(e)); storageReason(err) != policy.ReasonViolation {
			t.Errorf("queries on %s: %v, want %s", e, err, policy.ReasonViolation)
		}
	}
	if _, err := o.config(context.Background(), "ns", st("https://s3.example.org")); err != nil {
		t.Errorf("a public endpoint: %v", err)
	}
	o.Policy.AllowInternalEndpoints = true
	if _, err := o.config(context.Background(), "ns", st("http://minio.storage.svc:9000")); err != nil {
		t.Errorf("internal endpoints allowed: %v", err)
	}
}
