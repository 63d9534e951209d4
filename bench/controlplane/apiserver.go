package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
)

// controlPlane is etcd and kube-apiserver as processes of the bench's own,
// not envtest's: envtest makes a new CA when its API server restarts, and
// the bench restarts it under running clients. The API server keeps its
// serving certificate in its directory, and every client authenticates
// with one admin token (group system:masters).
type controlPlane struct {
	etcd, apiserver *proc
	url, token      string
	kubeconfig      string
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func freePorts(n int) ([]int, error) {
	var ps []int
	for range n {
		p, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("a free port: %w", err)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// insecureClient talks to the API server over TLS without checking its
// self-signed certificate: the bench's loopback cluster, nothing else.
func insecureClient() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // loopback bench cluster
}

func newControlPlane(dir, assets string) (*controlPlane, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	etcdURL, peerURL := "http://127.0.0.1:"+strconv.Itoa(ports[0]), "http://127.0.0.1:"+strconv.Itoa(ports[1])
	cp := &controlPlane{url: "https://127.0.0.1:" + strconv.Itoa(ports[2])}
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	cp.token = hex.EncodeToString(tok)
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(cp.token+",bench-admin,bench-admin,system:masters\n"), 0o600); err != nil {
		return nil, err
	}
	saKey := filepath.Join(dir, "sa.key")
	if err := writeRSAKey(saKey); err != nil {
		return nil, err
	}
	cp.etcd = &proc{
		name: "etcd", path: filepath.Join(assets, "etcd"), log: filepath.Join(dir, "etcd.log"),
		args: []string{
			"--name=bench", "--data-dir=" + filepath.Join(dir, "etcd"),
			"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
			"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
			"--initial-cluster=bench=" + peerURL,
			// A bench: an fsync per write would measure the disk, not the control plane.
			"--unsafe-no-fsync=true",
			"--quota-backend-bytes=" + strconv.Itoa(8<<30),
			"--log-level=warn",
		},
		ready: httpReady(http.DefaultClient, etcdURL+"/health"),
	}
	cp.apiserver = &proc{
		name: "kube-apiserver", path: filepath.Join(assets, "kube-apiserver"), log: filepath.Join(dir, "kube-apiserver.log"),
		args: []string{
			"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(ports[2]),
			// Its self-signed serving certificate is made once here and
			// kept across the restart.
			"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
			"--etcd-servers=" + etcdURL,
			"--token-auth-file=" + tokens,
			"--authorization-mode=RBAC",
			"--service-account-issuer=" + cp.url + "/",
			"--service-account-key-file=" + saKey,
			"--service-account-signing-key-file=" + saKey,
			"--service-cluster-ip-range=10.0.0.0/16",
			"--allow-privileged=true",
			"--profiling=false",
		},
		ready: cp.readyz,
	}
	cp.kubeconfig = filepath.Join(dir, "kubeconfig")
	return cp, os.WriteFile(cp.kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: bench-admin
  user: {token: %q}
contexts:
- name: bench
  context: {cluster: bench, user: bench-admin}
current-context: bench
`, cp.url, cp.token)), 0o600)
}

func writeRSAKey(path string) error {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("service account key: %w", err)
	}
	b := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	return os.WriteFile(path, b, 0o600)
}

// readyz is the API server's ready check, as its admin.
func (cp *controlPlane) readyz(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cp.url+"/readyz", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+cp.token)
	resp, err := insecureClient().Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("readyz: %s", resp.Status)
	}
	return nil
}

// restConfig is the admin's client configuration, with client-side
// throttling lifted: the bench's own requests must not be what limits it.
func (cp *controlPlane) restConfig() *rest.Config {
	return &rest.Config{Host: cp.url, BearerToken: cp.token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 500, Burst: 1000}
}
