// Command pause is the pod sandbox's process on the local cluster
// (blastfleet dev up --cluster): it holds the pod's namespaces and waits
// for the kubelet to stop it. No registry is reachable on the machines the
// stack runs on, so containerd's sandbox_image is built here from this.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	// As PID 1 it must reap the zombies that processes sharing the pod's
	// PID namespace leave; SIGCHLD wakes it for that.
	signal.Notify(c, syscall.SIGCHLD)
	for s := range c {
		if s != syscall.SIGCHLD {
			return
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
