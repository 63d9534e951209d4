// Command blastfleet-dev runs the local stack (internal/devstack): etcd,
// kube-apiserver, MinIO, Prometheus, the operator and the local runner on
// this machine. "blastfleet dev ARGS" runs it; it is a program of its own
// so that the user CLI does not link the stack or the local runner.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/blastfleet/blastfleet/internal/cli/devcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := devcmd.NewRoot().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "blastfleet dev:", err)
		os.Exit(1)
	}
}
