package objstore

import (
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The web identity token goes to AWS STS, or to the STS endpoint whoever
// runs the process set (AWS_ENDPOINT_URL_STS), never to a store's own
// endpoint nor anywhere a region can spell: a campaign's author chooses
// both the endpoint and the region (AWS_REGION in its pods), and a token
// they receive can be replayed against AWS.
func TestWebIdentityTokenStaysWithSTS(t *testing.T) {
	const token = "eyJ-the-pods-own-token"
	var mu sync.Mutex
	var leaked []string
	attacker := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(r.URL.RawQuery+string(body), token) {
			mu.Lock()
			leaked = append(leaked, r.Method+" "+r.URL.String())
			mu.Unlock()
		}
		w.WriteHeader(http.StatusForbidden)
	}))
	defer attacker.Close()
	host := strings.TrimPrefix(attacker.URL, "https://")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: attacker.Certificate().Raw})

	for _, tc := range []struct {
		name, region, sts, want string
	}{
		// minio-go builds "https://sts." + region + ".amazonaws.com":
		// user information before the attacker's host.
		{"region spells a host", "x@" + host + "/", "", "https://sts.amazonaws.com"},
		{"store endpoint is the attacker", "eu-west-1", "", "https://sts.eu-west-1.amazonaws.com"},
		{"china", "cn-north-1", "", "https://sts.cn-north-1.amazonaws.com.cn"},
		{"administrator's STS", "us-east-1", "https://sts.corp.example:9000", "https://sts.corp.example:9000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearS3Env(t)
			file := filepath.Join(t.TempDir(), "token")
			if err := os.WriteFile(file, []byte(token), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", file)
			t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/pods")
			// The pods' variables, as the operator sets them from the
			// campaign's output store.
			t.Setenv("AWS_REGION", tc.region)
			t.Setenv("AWS_ENDPOINT_URL", attacker.URL)
			t.Setenv("BLASTFLEET_S3_CREDENTIALS", string(CredentialsIdentity))
			t.Setenv("AWS_ENDPOINT_URL_STS", tc.sts)
			cfg, err := S3ConfigFromEnv()
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.webIdentitySTS(); got != tc.want {
				t.Errorf("token exchanged at %s, want %s", got, tc.want)
			}
			if u, err := url.Parse(cfg.webIdentitySTS()); err != nil || u.Host == host || u.User != nil {
				t.Errorf("token exchanged at %s: the store's host", cfg.webIdentitySTS())
			}
			if tc.sts != "" {
				return // not reachable here
			}
			// The request itself: whatever the STS answers (nothing, in
			// a sandbox), the attacker's server never sees the token.
			cfg.CAPEM = ca
			st, err := NewS3(cfg, "bucket", "")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5e9)
			defer cancel()
			_ = st.Put(ctx, "k", strings.NewReader("v"), 1)
			mu.Lock()
			defer mu.Unlock()
			if len(leaked) > 0 {
				t.Errorf("the store's endpoint received the web identity token: %v", leaked)
				leaked = nil
			}
		})
	}
}
