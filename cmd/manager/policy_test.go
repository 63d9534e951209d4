package main

import (
	"flag"
	"io"
	"reflect"
	"testing"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
)

func parsePolicy(t *testing.T, args ...string) policy.Policy {
	t.Helper()
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	p := config.Default().Policy
	bindPolicyFlags(fs, &p)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return p.Policy()
}

// No flag: anything allowed, but credentials Secrets and caBundle
// ConfigMaps must opt in.
func TestPolicyFlagDefaults(t *testing.T) {
	if got, want := parsePolicy(t), (policy.Policy{RequireCredentialsLabel: true, RequireCABundleLabel: true}); !reflect.DeepEqual(got, want) {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
}

// Lists are comma-separated, may repeat, and ignore empty entries (a
// chart rendering an empty list).
func TestPolicyFlagLists(t *testing.T) {
	got := parsePolicy(t,
		"--allowed-images=registry.example.org/blastfleet/*, docker.io/library/debian:12",
		"--allowed-images=other/x:1",
		"--allowed-priority-classes=batch-low",
		"--allowed-node-selectors=pool=blast,zone",
		"--allowed-toleration-keys=",
		"--allowed-endpoints=minio.storage.svc,10.20.0.0/16",
		"--require-credentials-label=false",
		"--require-ca-bundle-label=false",
		"--allow-internal-endpoints",
	)
	want := policy.Policy{
		Images:                 []string{"registry.example.org/blastfleet/*", "docker.io/library/debian:12", "other/x:1"},
		PriorityClasses:        []string{"batch-low"},
		NodeSelectors:          []string{"pool=blast", "zone"},
		Endpoints:              []string{"minio.storage.svc", "10.20.0.0/16"},
		AllowInternalEndpoints: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsed %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
}
