package devstack

import (
	"net"
	"path/filepath"
	"testing"
)

func TestPortsAreKeptAndMovedWhenTaken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ports.json")
	first, moved, err := loadPorts(path)
	if err != nil || len(moved) != 0 {
		t.Fatalf("first pick: %v, moved %v", err, moved)
	}
	seen := map[int]bool{}
	for _, p := range []int{first.Etcd, first.EtcdPeer, first.APIServer, first.MinIO, first.MinIOConsole, first.Prometheus, first.OperatorMetrics, first.OperatorProbes} {
		if p == 0 || seen[p] {
			t.Fatalf("ports %+v: zero or repeated", first)
		}
		seen[p] = true
	}
	if b := first.EngineMetricsBase; b < 20000 || b+engineMetricsPorts > 32000 || seen[b] {
		t.Fatalf("engine metrics block at %d", b)
	}

	again, moved, err := loadPorts(path)
	if err != nil || again != first || len(moved) != 0 {
		t.Fatalf("second pick %+v (moved %v, %v), want the same ports %+v", again, moved, err, first)
	}

	// Something else takes MinIO's port: it moves, and says so.
	l, err := net.Listen("tcp", hostPort(first.MinIO))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	third, moved, err := loadPorts(path)
	if err != nil || third.MinIO == first.MinIO || len(moved) != 1 || third.APIServer != first.APIServer {
		t.Fatalf("with MinIO's port taken: %+v, moved %v, %v", third, moved, err)
	}
}
