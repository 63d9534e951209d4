package devstack

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// probe GETs url and wants a 200.
func probe(ctx context.Context, c *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", url, resp.Status, body)
	}
	return nil
}

// httpClient is for the stack's plain HTTP endpoints.
var httpClient = &http.Client{Timeout: 5 * time.Second}

// tlsClient trusts the stack's CA, for the API server's health endpoints
// (readable anonymously).
func tlsClient(caFile string) (*http.Client, error) {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s: no certificate", caFile)
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}, nil
}

// clientFor picks the client a component's health URL needs.
func clientFor(dir, url string) *http.Client {
	if len(url) > 8 && url[:8] == "https://" {
		if c, err := tlsClient(pki{paths{dir}.pki()}.path("ca.crt")); err == nil {
			return c
		}
	}
	return httpClient
}
