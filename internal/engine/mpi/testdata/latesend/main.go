// Command latesend exercises Close when a peer is still sending: rank 0
// closes at once, while every other rank sends it a large (rendezvous)
// message a moment later, as a worker does that has not yet seen the
// master's stop. Without draining in Close, those senders waited for ever
// on a rank already in MPI_Finalize. Each rank prints "rank R ok".
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/blastfleet/blastfleet/internal/engine/mpi"
)

func main() {
	tr, err := mpi.Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, "latesend:", err)
		os.Exit(1)
	}
	if tr.Rank() != 0 {
		time.Sleep(300 * time.Millisecond)
		if err := tr.Send(0, make([]byte, 8<<20)); err != nil {
			fmt.Fprintln(os.Stderr, "latesend:", err)
			os.Exit(1)
		}
	}
	if err := tr.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "latesend:", err)
		os.Exit(1)
	}
	fmt.Printf("rank %d ok\n", tr.Rank())
}
