//go:build mpi

package mpi

import (
	"strings"
	"testing"
)

// TestVersion: the mpi.h compiled in and the library loaded are named, and
// are the same MPI (a binary built against one MPI's headers but resolving
// another's libmpi would fail here, before any launcher is involved).
func TestVersion(t *testing.T) {
	h, l := Header(), Library()
	t.Logf("compiled against %q, library %q", h, l)
	// How each MPI's mpi.h and MPI_Get_library_version begin.
	families := map[string]string{"Open MPI": "Open MPI", "MPICH": "MPICH", "Intel MPI": "Intel(R) MPI"}
	var family string
	for f := range families {
		if strings.HasPrefix(h, f+" ") {
			family = f
		}
	}
	if family == "" {
		t.Fatalf("Header() = %q: names no known MPI", h)
	}
	if !strings.HasPrefix(l, families[family]) {
		t.Errorf("Library() = %q, but the binary was compiled against %s", l, h)
	}
	if version := strings.TrimPrefix(h, family+" "); !strings.Contains(l, version) {
		t.Errorf("Library() = %q does not carry the headers' version %s", l, version)
	}
}
