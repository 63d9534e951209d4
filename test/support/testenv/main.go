package testenv

import (
	"os"
	"testing"
)

// Main is TestMain for packages that use BuiltBinaries: it runs the
// tests, deletes the binaries BuiltBinaries built, then runs cleanups
// (for the package's own shared fixtures) and exits with the tests' code.
func Main(m *testing.M, cleanups ...func()) {
	code := m.Run()
	RemoveBuiltBinaries()
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}
