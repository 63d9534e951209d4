package v1alpha1

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func decode(t *testing.T, body string) (Configuration, error) {
	t.Helper()
	return Decode([]byte("apiVersion: config.blastfleet.io/v1alpha1\nkind: Configuration\n" + body))
}

// The defaults are a configuration the manager accepts, and a file that
// names nothing leaves every one of them.
func TestDefaultsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
	c, err := decode(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, Default()) {
		t.Errorf("empty file gives %+v, want the defaults %+v", c, Default())
	}
}

// A file replaces only what it names: nested fields beside a changed one
// keep their defaults.
func TestLoadOverridesOnlyWhatItNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	body := "apiVersion: config.blastfleet.io/v1alpha1\nkind: Configuration\n" +
		"ledgerPollInterval: 30s\nsite: lab\nnamespaceSelector: \"\"\npartitionNetworkPolicy: false\n" +
		"bounds:\n  maxConcurrentReconciles: 4\n" +
		"policy:\n  allowedEndpoints: [minio.minio.svc]\n  requireCABundleLabel: false\n" +
		"defaultStore:\n  endpoint: http://minio.minio.svc:9000\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.LedgerPollInterval.Duration = 30 * time.Second
	want.Site = "lab"
	want.NamespaceSelector = ""
	want.PartitionNetworkPolicy = false
	want.Bounds.MaxConcurrentReconciles = 4
	want.Policy.AllowedEndpoints = []string{"minio.minio.svc"}
	want.Policy.RequireCABundleLabel = false
	want.DefaultStore.Endpoint = "http://minio.minio.svc:9000"
	if !reflect.DeepEqual(c, want) {
		t.Errorf("loaded\n%+v\nwant\n%+v", c, want)
	}
}

// Bad files are refused naming what is wrong.
func TestLoadRefuses(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"ledgerPollIntervall: 30s\n", "ledgerPollIntervall"},
		{"ledgerPollInterval: soon\n", "soon"},
		{"ledgerPollInterval: 0s\n", "ledgerPollInterval must be positive"},
		{"bounds:\n  maxConcurrentReconciles: 0\n", "bounds.maxConcurrentReconciles"},
		{"clientConnection:\n  qps: -1\n", "clientConnection.qps"},
		{"site: \"\"\n", "site"},
		{"burst:\n  margin: 1.5\n", "burst"},
		{"policy:\n  allowedEndpoints: [\"http://minio:9000\"]\n", "policy"},
		{"defaultStore:\n  endpoint: minio.minio.svc:9000\n", "defaultStore.endpoint"},
		{"stsEndpoint: ftp://sts\n", "stsEndpoint"},
		{"leaderElection:\n  leaderElect: true\n  resourceName: \"\"\n", "leaderElection.resourceName"},
	} {
		_, err := decode(t, tc.body)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one naming %q", tc.body, err, tc.want)
		}
	}
	for _, head := range []string{"kind: Configuration\n", "apiVersion: config.blastfleet.io/v1alpha1\nkind: Config\n", "apiVersion: config.blastfleet.io/v1beta1\nkind: Configuration\n"} {
		if _, err := Decode([]byte(head)); err == nil || !strings.Contains(err.Error(), "apiVersion") {
			t.Errorf("%q: error %v, want one naming apiVersion and kind", head, err)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("a missing file is accepted")
	}
}

// docs/operator.md's example is a file the manager accepts.
func TestDocsExample(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/operator.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Configuration\n")
	if !ok {
		t.Fatal("docs/operator.md has no Configuration section")
	}
	_, block, ok := strings.Cut(section, "```yaml\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("docs/operator.md's Configuration section has no yaml block")
	}
	c, err := Decode([]byte(block))
	if err != nil {
		t.Fatalf("docs/operator.md's example: %v\n%s", err, block)
	}
	if c.Site == Default().Site || c.DefaultStore.Endpoint == "" {
		t.Errorf("docs/operator.md's example sets no site and default store: %+v", c)
	}
}
