package cli

import (
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestMain removes the binaries a test built (the local stack's).
func TestMain(m *testing.M) { testenv.Main(m) }
