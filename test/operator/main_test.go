package operator

import (
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
