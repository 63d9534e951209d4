package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
)

func parse(t *testing.T, args ...string) (config.Configuration, error) {
	t.Helper()
	return parseArgs(args, &zap.Options{}, io.Discard)
}

// No file and no flag: the defaults of the configuration package.
func TestArgsDefaults(t *testing.T) {
	c, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, config.Default()) {
		t.Errorf("no arguments give %+v, want the defaults %+v", c, config.Default())
	}
}

// The file's values replace the defaults, and a flag given replaces the
// file's, lists included (not appended to them).
func TestArgsFileThenFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	file := "apiVersion: config.blastfleet.io/v1alpha1\nkind: Configuration\n" +
		"site: lab\nledgerPollInterval: 30s\nleaderElection:\n  leaderElect: true\n  resourceName: lab.blastfleet.io\n" +
		"policy:\n  allowedEndpoints: [minio.minio.svc]\ndefaultStore:\n  endpoint: http://minio.minio.svc:9000\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := parse(t, "--config", path, "--ledger-poll-interval=5s", "--allowed-endpoints=s3.example.org", "--zap-log-level=debug",
		"--pprof-bind-address=127.0.0.1:6060")
	if err != nil {
		t.Fatal(err)
	}
	want := config.Default()
	want.Site = "lab"
	want.LedgerPollInterval.Duration = 5 * time.Second
	want.LeaderElection.LeaderElect, want.LeaderElection.ResourceName = true, "lab.blastfleet.io"
	want.Policy.AllowedEndpoints = []string{"s3.example.org"}
	want.DefaultStore.Endpoint = "http://minio.minio.svc:9000"
	want.Health.PprofBindAddress = "127.0.0.1:6060"
	if !reflect.DeepEqual(c, want) {
		t.Errorf("parsed\n%+v\nwant\n%+v", c, want)
	}
}

// A bad file or a bad flag value stops the manager naming it.
func TestArgsRefused(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: config.blastfleet.io/v1alpha1\nkind: Configuration\nsitee: lab\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", bad}, "sitee"},
		{[]string{"--config", filepath.Join(t.TempDir(), "none.yaml")}, "none.yaml"},
		{[]string{"--burst-margin=2"}, "burst"},
		{[]string{"--default-store-endpoint=minio:9000"}, "defaultStore.endpoint"},
	} {
		if _, err := parse(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %q", tc.args, err, tc.want)
		}
	}
}
