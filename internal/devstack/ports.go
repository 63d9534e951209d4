package devstack

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"strconv"
)

// Ports are the stack's loopback ports. They are kept in ports.json and
// reused by the next up: BlastDatabases and SearchCampaigns kept in etcd
// name the MinIO endpoint, and the kubeconfig names the API server.
type Ports struct {
	Etcd            int `json:"etcd"`
	EtcdPeer        int `json:"etcdPeer"`
	APIServer       int `json:"apiServer"`
	MinIO           int `json:"minio"`
	MinIOConsole    int `json:"minioConsole"`
	Prometheus      int `json:"prometheus"`
	OperatorMetrics int `json:"operatorMetrics"`
	OperatorProbes  int `json:"operatorProbes"`
	// EngineMetricsBase starts the block the local runner hands out to
	// MPIJobs, one port per rank (engineMetricsPorts in all).
	EngineMetricsBase int `json:"engineMetricsBase"`
}

// engineMetricsPorts is the size of the ranks' metrics port block. It
// is checked free at up; ranks beyond it would collide with whatever
// listens there, which a metrics endpoint survives.
const engineMetricsPorts = 64

const loopback = "127.0.0.1"

func hostPort(port int) string { return net.JoinHostPort(loopback, strconv.Itoa(port)) }

// loadPorts reuses the ports of ports.json that are still free and picks
// new ones for the rest; moved lists the ones that changed.
func loadPorts(path string) (p Ports, moved []string, err error) {
	var old Ports
	if err := readJSON(path, &old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, nil, fmt.Errorf("ports: %w", err)
	}
	taken := map[int]bool{}
	pick := func(name string, prev int, dst *int) error {
		if prev > 0 && !taken[prev] && portFree(prev) {
			*dst = prev
		} else {
			port, err := freePort(taken)
			if err != nil {
				return fmt.Errorf("a free port for %s: %w", name, err)
			}
			if prev > 0 {
				moved = append(moved, fmt.Sprintf("%s moved from port %d (taken) to %d", name, prev, port))
			}
			*dst = port
		}
		taken[*dst] = true
		return nil
	}
	for _, f := range []struct {
		name string
		prev int
		dst  *int
	}{
		{"etcd", old.Etcd, &p.Etcd}, {"etcd peer", old.EtcdPeer, &p.EtcdPeer},
		{"kube-apiserver", old.APIServer, &p.APIServer}, {"MinIO", old.MinIO, &p.MinIO},
		{"MinIO console", old.MinIOConsole, &p.MinIOConsole}, {"Prometheus", old.Prometheus, &p.Prometheus},
		{"operator metrics", old.OperatorMetrics, &p.OperatorMetrics}, {"operator probes", old.OperatorProbes, &p.OperatorProbes},
	} {
		if err := pick(f.name, f.prev, f.dst); err != nil {
			return p, nil, err
		}
	}
	if old.EngineMetricsBase > 0 && blockFree(old.EngineMetricsBase, taken) {
		p.EngineMetricsBase = old.EngineMetricsBase
	} else if p.EngineMetricsBase, err = freeBlock(taken); err != nil {
		return p, nil, err
	}
	return p, moved, writeJSON(path, p, 0o644)
}

// portFree reports whether port can be bound on loopback now.
func portFree(port int) bool {
	l, err := net.Listen("tcp", hostPort(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// freePort asks the kernel for a free loopback port not in taken.
func freePort(taken map[int]bool) (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", loopback+":0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !taken[port] {
			return port, nil
		}
	}
	return 0, errors.New("the kernel keeps handing out taken ports")
}

// freeBlock finds engineMetricsPorts free ports in a row below the
// kernel's ephemeral range (32768 and up on Linux), where outgoing
// connections do not take them meanwhile.
func freeBlock(taken map[int]bool) (int, error) {
	for range 50 {
		base := 20000 + rand.IntN(12000-engineMetricsPorts)
		if blockFree(base, taken) {
			return base, nil
		}
	}
	return 0, errors.New("no block of free ports for the engine ranks' metrics in 20000-32000")
}

func blockFree(base int, taken map[int]bool) bool {
	for p := base; p < base+engineMetricsPorts; p++ {
		if taken[p] || !portFree(p) {
			return false
		}
	}
	return true
}
