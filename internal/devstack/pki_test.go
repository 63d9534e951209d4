package devstack

import (
	"bytes"
	"crypto/x509"
	"os"
	"slices"
	"testing"
)

func TestPKI(t *testing.T) {
	k := pki{t.TempDir()}
	if err := k.ensure(); err != nil {
		t.Fatal(err)
	}
	ca, _, err := k.load("ca")
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for name, want := range map[string]struct {
		usage x509.ExtKeyUsage
		cn    string
		orgs  []string
	}{
		"apiserver": {x509.ExtKeyUsageServerAuth, "kube-apiserver", nil},
		"admin":     {x509.ExtKeyUsageClientAuth, adminUser, []string{"system:masters"}},
		"operator":  {x509.ExtKeyUsageClientAuth, operatorUser, nil},
	} {
		c, _, err := k.load(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := c.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{want.usage}}); err != nil {
			t.Errorf("%s does not verify against the CA for %v: %v", name, want.usage, err)
		}
		if c.Subject.CommonName != want.cn || !slices.Equal(c.Subject.Organization, want.orgs) {
			t.Errorf("%s: subject %v, want CN %s O %v", name, c.Subject, want.cn, want.orgs)
		}
	}
	srv, _, _ := k.load("apiserver")
	if err := srv.VerifyHostname("127.0.0.1"); err != nil {
		t.Errorf("serving certificate: %v", err)
	}

	// A second ensure keeps everything, so kubeconfigs stay valid.
	before, _ := os.ReadFile(k.path("admin.crt"))
	if err := k.ensure(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(k.path("admin.crt"))
	if !bytes.Equal(before, after) {
		t.Error("ensure replaced a valid certificate")
	}
	if st, err := os.Stat(k.path("admin.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("admin.key: %v, mode %v; want 0600", err, st.Mode())
	}
}
