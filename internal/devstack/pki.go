package devstack

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Users the API server knows by client certificate.
const (
	// adminUser is in system:masters: the kubeconfig's user, the local
	// runner and the stack's own bootstrap.
	adminUser = "blastfleet-dev-admin"
	// operatorUser is bound to the operator's ClusterRole only, as its
	// service account would be on a cluster.
	operatorUser = "blastfleet-manager"
)

// pki is the stack's certificates: one CA signs the API server's serving
// certificate and the users' client certificates; sa.key signs service
// account tokens (kube-apiserver requires one).
type pki struct{ dir string }

func (k pki) path(name string) string { return filepath.Join(k.dir, name) }

// certValidity is long enough for any dev stack; certificates are
// remade when less than a day is left.
const certValidity = 365 * 24 * time.Hour

// ensure creates whatever is missing or about to expire. Existing
// certificates are kept, so kubeconfigs written earlier stay valid.
func (k pki) ensure(extra ...certSpec) error {
	if err := os.MkdirAll(k.dir, 0o700); err != nil {
		return err
	}
	newCA := !k.fresh("ca")
	if newCA {
		if err := k.makeCA(); err != nil {
			return fmt.Errorf("CA: %w", err)
		}
	}
	ca, caKey, err := k.load("ca")
	if err != nil {
		return fmt.Errorf("CA: %w", err)
	}
	for _, c := range append([]certSpec{
		{"apiserver", &x509.Certificate{Subject: pkix.Name{CommonName: "kube-apiserver"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc." + clusterDomain},
			IPAddresses: []net.IP{net.ParseIP(loopback), net.ParseIP("10.0.0.1"), net.ParseIP(nodeIP), net.ParseIP(apiServiceIP)}}},
		clientCert("admin", adminUser, "system:masters"),
		clientCert("operator", operatorUser),
	}, extra...) {
		if !newCA && k.fresh(c.name) {
			continue
		}
		if err := k.issue(c.name, c.tmpl, ca, caKey); err != nil {
			return fmt.Errorf("%s certificate: %w", c.name, err)
		}
	}
	if _, err := os.Stat(k.path("sa.key")); err != nil {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		if err := writeKey(k.path("sa.key"), key); err != nil {
			return fmt.Errorf("service account key: %w", err)
		}
	}
	return nil
}

// certSpec is a certificate to issue: name.crt and name.key.
type certSpec struct {
	name string
	tmpl *x509.Certificate
}

// clientCert is a client certificate for user in groups.
func clientCert(name, user string, groups ...string) certSpec {
	return certSpec{name, &x509.Certificate{Subject: pkix.Name{CommonName: user, Organization: groups}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}}
}

// fresh reports whether name.crt exists with more than a day left.
func (k pki) fresh(name string) bool {
	c, _, err := k.load(name)
	return err == nil && time.Until(c.NotAfter) > 24*time.Hour
}

func (k pki) makeCA() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		Subject: pkix.Name{CommonName: "blastfleet-dev-ca"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
	}
	return k.sign("ca", tmpl, tmpl, key, key)
}

func (k pki) issue(name string, tmpl, ca *x509.Certificate, caKey crypto.Signer) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	return k.sign(name, tmpl, ca, key, caKey)
}

func (k pki) sign(name string, tmpl, parent *x509.Certificate, key *ecdsa.PrivateKey, parentKey crypto.Signer) error {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour) // clocks of one machine, but be lenient
	tmpl.NotAfter = time.Now().Add(certValidity)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		return err
	}
	if err := writeKey(k.path(name+".key"), key); err != nil {
		return err
	}
	return os.WriteFile(k.path(name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

// load reads name.crt and name.key.
func (k pki) load(name string) (*x509.Certificate, crypto.Signer, error) {
	cb, err := os.ReadFile(k.path(name + ".crt"))
	if err != nil {
		return nil, nil, err
	}
	kb, err := os.ReadFile(k.path(name + ".key"))
	if err != nil {
		return nil, nil, err
	}
	cp, _ := pem.Decode(cb)
	kp, _ := pem.Decode(kb)
	if cp == nil || kp == nil {
		return nil, nil, errors.New("not PEM")
	}
	c, err := x509.ParseCertificate(cp.Bytes)
	if err != nil {
		return nil, nil, err
	}
	key, err := x509.ParseECPrivateKey(kp.Bytes)
	if err != nil {
		return nil, nil, err
	}
	return c, key, nil
}

// bytes returns a file's bytes (certificates and keys go into kubeconfigs
// inline, so the files can be regenerated without breaking them).
func (k pki) bytes(name string) ([]byte, error) { return os.ReadFile(k.path(name)) }
