package operator

import (
	"testing"

	"github.com/blastfleet/blastfleet/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
