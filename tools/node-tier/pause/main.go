// Command pause is the node tier's pod sandbox process, a stand-in for registry.k8s.io/pause built
// from this file alone: containerd starts it first in every pod, and its only work is to exist so
// that the pod's namespaces (network, IPC and, when shared, PID) have a holder.
//
//   - SIGINT or SIGTERM: exits 0 (the kubelet is tearing the pod down).
//   - SIGCHLD: reaps every exited child. With shareProcessNamespace the pod's other processes are
//     re-parented to this one (it is PID 1 there), and zombies must not pile up.
//
// It never reads its arguments or environment and writes nothing unless a signal cannot be handled.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	// Children that exited before Notify took effect are reaped too.
	reap()
	for s := range signals {
		if s == syscall.SIGCHLD {
			reap()
			continue
		}
		os.Exit(0)
	}
}

// reap collects every child that has exited, without blocking.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if pid <= 0 || err != nil {
			return
		}
	}
}
