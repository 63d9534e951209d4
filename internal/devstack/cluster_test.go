package devstack

import (
	"os"
	"regexp"
	"testing"

	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// The Kueue whose chart the cluster installs is the one
// hack/install-cluster.sh builds the image's binary of.
func TestKueueVersionMatchesInstallScript(t *testing.T) {
	b, err := os.ReadFile("../../hack/install-cluster.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`KUEUE_VERSION="\$\{KUEUE_VERSION:-(v[^}]+)\}"`).FindSubmatch(b)
	if m == nil || string(m[1]) != kueueVersion {
		t.Errorf("hack/install-cluster.sh builds Kueue %q; the cluster installs the chart of %s", m, kueueVersion)
	}
}

// The Argo the operator's docs and tests name is the one
// hack/install-argo.sh builds.
func TestArgoVersionMatchesInstallScript(t *testing.T) {
	b, err := os.ReadFile("../../hack/install-argo.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`ARGO_VERSION="\$\{ARGO_VERSION:-(v[^}]+)\}"`).FindSubmatch(b)
	if m == nil || string(m[1]) != argowf.Version {
		t.Errorf("hack/install-argo.sh builds Argo %q; argowf.Version is %s", m, argowf.Version)
	}
}
