package testenv

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"
)

// OIDC is a minimal OpenID Connect issuer on 127.0.0.1: discovery and a
// JWKS with one RSA key, and tokens signed by it. It stands in for a
// cluster's service account issuer (what IRSA's tokens come from) so that
// MinIO's AssumeRoleWithWebIdentity can be tested for real.
type OIDC struct {
	Issuer string // http://127.0.0.1:port
	key    *rsa.PrivateKey
	kid    string
}

// StartOIDC serves the issuer until the test ends.
func StartOIDC(t testing.TB) *OIDC {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &OIDC{Issuer: "http://" + ln.Addr().String(), key: key, kid: randomHex(t, 4)}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                o.Issuer,
			"jwks_uri":                              o.Issuer + "/keys",
			"authorization_endpoint":                o.Issuer + "/authorize",
			"token_endpoint":                        o.Issuer + "/token",
			"response_types_supported":              []string{"id_token"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
			"claims_supported":                      []string{"sub", "aud", "exp", "iat", "iss", "policy"},
		})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "use": "sig", "alg": "RS256", "kid": o.kid,
			"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes()),
		}}})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return o
}

// OIDCClientID is the audience MinIO started by (*OIDC).StartMinIO accepts.
const OIDCClientID = "blastfleet"

// StartMinIO starts MinIO trusting this issuer for
// AssumeRoleWithWebIdentity: tokens for OIDCClientID whose "policy" claim
// names MinIO policies (readwrite, readonly) get those.
func (o *OIDC) StartMinIO(t testing.TB) *MinIO {
	t.Helper()
	return StartMinIOEnv(t,
		"MINIO_IDENTITY_OPENID_CONFIG_URL="+o.ConfigURL(),
		"MINIO_IDENTITY_OPENID_CLIENT_ID="+OIDCClientID,
		"MINIO_IDENTITY_OPENID_CLAIM_NAME=policy")
}

// ConfigURL is the discovery document's URL.
func (o *OIDC) ConfigURL() string { return o.Issuer + "/.well-known/openid-configuration" }

// Token is an RS256 JWT from this issuer for audience, valid for ttl,
// with claims added (for MinIO, "policy": the policies it grants).
func (o *OIDC) Token(t testing.TB, audience string, ttl time.Duration, claims map[string]any) string {
	t.Helper()
	now := time.Now()
	c := map[string]any{"iss": o.Issuer, "sub": "system:serviceaccount:test:blastfleet", "aud": audience,
		"iat": now.Unix(), "exp": now.Add(ttl).Unix()}
	for k, v := range claims {
		c[k] = v
	}
	head, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": o.kid})
	body, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	signed := b64(head) + "." + b64(body)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, o.key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + b64(sig)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
