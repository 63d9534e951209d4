package objstore

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"

	"github.com/minio/minio-go/v7"
)

// transports holds one transport per TLS setting (secure, CA bundle file,
// CA PEM), shared by every client opened with it: minio-go otherwise makes
// a transport per client, and an operator that opens a campaign's store at
// each reconcile would dial (and TLS-handshake) anew every time, leaving the
// old connections idle until they time out.
var transports sync.Map // transportKey -> *http.Transport

type transportKey struct {
	secure bool
	// ca is the hash of the authorities trusted beside the system's: the
	// bundle file's content, read each time (a mounted ConfigMap may be
	// updated in place), then the PEM.
	ca [sha256.Size]byte
}

// transport is minio-go's default transport, trusting CABundle's and
// CAPEM's authorities beside the system's, shared by every client of the
// same settings.
func (c S3Config) transport() (http.RoundTripper, error) {
	var bundle []byte
	if c.CABundle != "" {
		pem, err := os.ReadFile(c.CABundle)
		if err != nil {
			return nil, fmt.Errorf("AWS_CA_BUNDLE: %w", err)
		}
		bundle = pem
	}
	key := transportKey{secure: c.Secure}
	if len(bundle)+len(c.CAPEM) > 0 {
		h := sha256.New()
		h.Write(bundle)
		h.Write([]byte{0})
		h.Write(c.CAPEM)
		copy(key.ca[:], h.Sum(nil))
	}
	if t, ok := transports.Load(key); ok {
		return t.(*http.Transport), nil
	}
	t, err := c.newTransport(bundle)
	if err != nil {
		return nil, err
	}
	shared, _ := transports.LoadOrStore(key, t)
	return shared.(*http.Transport), nil
}

func (c S3Config) newTransport(bundle []byte) (*http.Transport, error) {
	t, err := minio.DefaultTransport(c.Secure)
	if err != nil {
		return nil, err
	}
	if len(bundle) == 0 && len(c.CAPEM) == 0 {
		return t, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if len(bundle) > 0 && !pool.AppendCertsFromPEM(bundle) {
		return nil, fmt.Errorf("AWS_CA_BUNDLE %s: no PEM certificate in it", c.CABundle)
	}
	if len(c.CAPEM) > 0 && !pool.AppendCertsFromPEM(c.CAPEM) {
		return nil, errors.New("CA bundle: no PEM certificate in it")
	}
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	t.TLSClientConfig.RootCAs = pool
	return t, nil
}

// CheckCABundle says whether file ("" is none) is a readable PEM bundle,
// for a program to refuse a wrong one at start rather than at each store.
func CheckCABundle(file string) error {
	if file == "" {
		return nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s: no PEM certificate in it", file)
	}
	return nil
}
