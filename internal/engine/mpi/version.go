//go:build mpi

package mpi

/*
#include <mpi.h>

// bf_header names the mpi.h this binary was compiled against. Intel MPI's
// and Cray's mpi.h also define MPICH_VERSION (they are MPICH derivatives),
// so the more specific names come first.
static const char *bf_header(void) {
#if defined(I_MPI_VERSION)
	return "Intel MPI " I_MPI_VERSION;
#elif defined(MPICH_VERSION)
	return "MPICH " MPICH_VERSION;
#elif defined(OPEN_MPI)
#define BF_STR2(x) #x
#define BF_STR(x) BF_STR2(x)
	return "Open MPI " BF_STR(OMPI_MAJOR_VERSION) "." BF_STR(OMPI_MINOR_VERSION) "." BF_STR(OMPI_RELEASE_VERSION);
#else
	return "an unknown MPI";
#endif
}

// bf_library asks the library loaded at run time; MPI-3 allows it before
// MPI_Init, so it needs no launcher.
static void bf_library(char *buf, int n) {
	int len = 0;
	if (MPI_Get_library_version(buf, &len) != MPI_SUCCESS || len >= n) len = 0;
	buf[len] = 0;
}
*/
import "C"

import "strings"

// Header is the MPI whose mpi.h the binary was compiled against, with its
// version, e.g. "MPICH 4.0.2" or "Open MPI 4.1.4".
func Header() string {
	return C.GoString(C.bf_header())
}

// Library is the first line of MPI_Get_library_version of the MPI library
// loaded at run time. It differs from Header when a site swaps in its own
// ABI-compatible library (LD_LIBRARY_PATH, a container's bind mount).
func Library() string {
	var buf [C.MPI_MAX_LIBRARY_VERSION_STRING + 1]C.char
	C.bf_library(&buf[0], C.int(len(buf)))
	line, _, _ := strings.Cut(strings.TrimSpace(C.GoString(&buf[0])), "\n")
	return strings.Join(strings.Fields(line), " ") // MPICH pads with tabs

}
