package integration

import (
	"testing"

	"github.com/blastfleet/blastfleet/internal/kubetest"
)

func TestCRDsInstall(t *testing.T) {
	kubetest.Start(t)
}
