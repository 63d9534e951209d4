package devstack

import (
	"context"
	"path/filepath"
)

// etcdChild is a one-member etcd on loopback, keeping its data in the
// stack's directory across restarts.
func etcdChild(cfg *Config, p paths, ports Ports) *child {
	client, peer := "http://"+hostPort(ports.Etcd), "http://"+hostPort(ports.EtcdPeer)
	return &child{
		name: "etcd", path: filepath.Join(cfg.Assets, "etcd"), logPath: p.log("etcd"),
		args: []string{
			"--name=default",
			"--data-dir=" + p.etcdData(),
			"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
			"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
			"--initial-cluster=default=" + peer,
			// A development store: losing the last writes in a power cut
			// is acceptable, a slow fsync per write on a laptop is not.
			"--unsafe-no-fsync=true",
			"--log-level=warn",
		},
		ready: func(ctx context.Context) error { return probe(ctx, httpClient, client+"/health") },
	}
}
