package controllers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// The CRD's retryPolicy default (a kubebuilder marker) and the ledger's
// defaults (what a plan without a policy gets: campaign plan, HPC sites)
// are one policy: a campaign retries the same whichever made its plan.
func TestRetryDefaultsAreTheLedgers(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "config", "crd", "bases", "blastfleet.io_searchcampaigns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	def := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["retryPolicy"].Default
	if def == nil {
		t.Fatal("spec.retryPolicy has no default")
	}
	var got map[string]int
	if err := json.Unmarshal(def.Raw, &got); err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]int{
		"maxAttempts": ledger.DefaultMaxAttempts, "maxAbandonedAttempts": ledger.DefaultMaxAbandoned,
		"leaseSeconds": ledger.DefaultLeaseSeconds, "clockSkewSeconds": ledger.DefaultSkewSeconds,
	} {
		if got[field] != want {
			t.Errorf("spec.retryPolicy.%s defaults to %d in the CRD, %d in the ledger", field, got[field], want)
		}
	}
	if r := ledger.RenewSecondsFor(ledger.DefaultLeaseSeconds); r != ledger.DefaultRenewSeconds {
		t.Errorf("the default lease renews every %d s, the ledger's default is %d", r, ledger.DefaultRenewSeconds)
	}
}
