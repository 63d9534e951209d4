package objstore

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/minio/minio-go/v7"
)

// transport is minio-go's default transport, trusting CABundle's and
// CAPEM's authorities beside the system's; nil (the default) without a bundle.
func (c S3Config) transport() (http.RoundTripper, error) {
	if c.CABundle == "" && len(c.CAPEM) == 0 {
		return nil, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if c.CABundle != "" {
		pem, err := os.ReadFile(c.CABundle)
		if err != nil {
			return nil, fmt.Errorf("AWS_CA_BUNDLE: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("AWS_CA_BUNDLE %s: no PEM certificate in it", c.CABundle)
		}
	}
	if len(c.CAPEM) > 0 && !pool.AppendCertsFromPEM(c.CAPEM) {
		return nil, errors.New("CA bundle: no PEM certificate in it")
	}
	t, err := minio.DefaultTransport(c.Secure)
	if err != nil {
		return nil, err
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
