package operator

import (
	"os"
	"testing"

	"github.com/blastfleet/blastfleet/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBuiltBinaries()
	os.Exit(code)
}
