package controllers

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
)

// Stores that name no endpoint get the default, anonymous ones (public
// AWS buckets) and those that name one keep theirs; without a default
// nothing changes.
func TestDefaultStoreEndpoint(t *testing.T) {
	const def = "http://10.214.0.100:9000"
	o := StoreOpener{DefaultEndpoint: def}
	c := &v1alpha1.SearchCampaign{}
	c.Spec.Queries.Storage = &v1alpha1.ObjectStorage{Bucket: "q", Anonymous: true}
	o.defaultCampaign(c)
	if c.Spec.Output.Endpoint != def || c.Spec.Queries.Storage.Endpoint != "" {
		t.Errorf("campaign output %q, anonymous queries %q; want %q and none", c.Spec.Output.Endpoint, c.Spec.Queries.Storage.Endpoint, def)
	}
	db := &v1alpha1.BlastDatabase{}
	db.Spec.Replicas = []v1alpha1.DatabaseReplica{{Storage: v1alpha1.ObjectStorage{Endpoint: "https://s3.example.org"}}, {}}
	o.defaultDatabase(db)
	if db.Spec.Storage.Endpoint != def || db.Spec.Replicas[0].Storage.Endpoint != "https://s3.example.org" || db.Spec.Replicas[1].Storage.Endpoint != def {
		t.Errorf("database stores %q, %q, %q", db.Spec.Storage.Endpoint, db.Spec.Replicas[0].Storage.Endpoint, db.Spec.Replicas[1].Storage.Endpoint)
	}
	c = &v1alpha1.SearchCampaign{}
	StoreOpener{}.defaultCampaign(c)
	if c.Spec.Output.Endpoint != "" {
		t.Errorf("no default: output endpoint %q, want none (AWS S3)", c.Spec.Output.Endpoint)
	}
}

// The default endpoint is the administrator's: a policy that refuses
// internal endpoints, or lists others, still lets it be reached, and
// still refuses the same kind of endpoint named by an author.
func TestDefaultStoreEndpointPolicy(t *testing.T) {
	const def = "http://10.214.0.100:9000"
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", Labels: map[string]string{v1alpha1.CredentialsLabel: "true"}},
		Data: map[string][]byte{"AWS_ACCESS_KEY_ID": []byte("id"), "AWS_SECRET_ACCESS_KEY": []byte("key")}}
	reader := fake.NewClientBuilder().WithObjects(sec).Build()
	for _, pol := range []policy.Policy{
		{RequireCredentialsLabel: true},
		{RequireCredentialsLabel: true, Endpoints: []string{"s3.example.org"}},
	} {
		o := StoreOpener{Secrets: reader, Policy: pol, DefaultEndpoint: def}
		c := &v1alpha1.SearchCampaign{}
		c.Spec.Output = v1alpha1.ObjectStorage{Bucket: "b", CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "s"}}
		o.defaultCampaign(c)
		cfg, err := o.config(context.Background(), "ns", c.Spec.Output)
		if err != nil {
			t.Errorf("policy %+v: the default store is refused: %v", pol, err)
		} else if cfg.Endpoint != "10.214.0.100:9000" || cfg.Secure {
			t.Errorf("policy %+v: opens %s (secure %t), want the default", pol, cfg.Endpoint, cfg.Secure)
		}
		if err := o.CheckAccess(context.Background(), "ns", "spec.output", c.Spec.Output); err != nil {
			t.Errorf("policy %+v: CheckAccess refuses the default store: %v", pol, err)
		}
		other := c.Spec.Output
		other.Endpoint = "http://10.214.0.101:9000"
		if err := o.CheckAccess(context.Background(), "ns", "spec.output", other); storageReason(err) != policy.ReasonViolation {
			t.Errorf("policy %+v: an author's internal endpoint %s: %v, want a violation", pol, other.Endpoint, err)
		}
	}
}
