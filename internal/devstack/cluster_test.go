package devstack

import (
	"os"
	"regexp"
	"testing"
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
