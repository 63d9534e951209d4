package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// StartMinIOTLS is StartMinIO speaking HTTPS with a certificate for
// 127.0.0.1 signed by a throwaway authority of the test's own (m.CA), as
// a private endpoint a user's clients must be told to trust.
func StartMinIOTLS(t testing.TB) *MinIO {
	t.Helper()
	bin, err := MinIOBinary()
	if err != nil {
		skipOrFatal(t, "MinIO not available: %v", err)
	}
	m := &MinIO{AccessKey: "bf" + randomHex(t, 8), SecretKey: randomHex(t, 20), Dir: t.TempDir(), CertsDir: t.TempDir()}
	m.CA = filepath.Join(t.TempDir(), "ca.pem")
	if err := writeTestCerts(m.CertsDir, m.CA); err != nil {
		t.Fatal(err)
	}
	m.Host = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	m.Endpoint = "https://" + m.Host
	if err := m.startAt(t, bin, "MinIO (TLS)"); err != nil {
		t.Fatalf("starting MinIO with TLS: %v", err)
	}
	return m
}

// writeTestCerts writes an authority's certificate to caFile and a server
// certificate for 127.0.0.1 it signed, with its key, into dir as MinIO
// reads them (public.crt, private.key).
func writeTestCerts(dir, caFile string) error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "blastfleet test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	srv := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srv, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		return err
	}
	for path, block := range map[string]*pem.Block{
		caFile:                            {Type: "CERTIFICATE", Bytes: caDER},
		filepath.Join(dir, "public.crt"):  {Type: "CERTIFICATE", Bytes: srvDER},
		filepath.Join(dir, "private.key"): {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			return err
		}
	}
	return nil
}
