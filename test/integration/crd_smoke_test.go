package integration

import (
	"testing"

	"github.com/blastfleet/blastfleet/test/support/kubetest"
)

func TestCRDsInstall(t *testing.T) {
	kubetest.Start(t)
}
