package objstore

import (
	"fmt"
	"net/url"
	"os"
)

// S3Config is how to reach an S3 endpoint. Its String method hides the
// secrets, so logging a config cannot leak them.
type S3Config struct {
	Endpoint     string // host[:port]
	Secure       bool   // HTTPS
	PathStyle    bool   // bucket in the path, as MinIO and most non-AWS servers want
	Region       string
	AccessKey    string
	SecretKey    string
	SessionToken string
	// Credentials says where requests' credentials come from when
	// AccessKey is empty: CredentialsAnonymous (unsigned requests, for
	// public buckets) or CredentialsIdentity (the standard chain).
	Credentials CredentialsSource
	// Profile is the shared credentials file's profile the identity
	// chain reads ("" is AWS_PROFILE, else "default").
	Profile string
	// STSEndpoint is where a web identity token is exchanged for
	// credentials (the role's AWS_ENDPOINT_URL_STS, else the unprefixed
	// one: the token is the pod's, shared by every store); empty is AWS
	// STS of Region (webIdentitySTS).
	STSEndpoint string
	// CABundle is a PEM file of certificate authorities trusted beside the
	// system's, for a private endpoint's own CA (AWS_CA_BUNDLE); CAPEM the
	// same authorities in memory (the operator reads them from a
	// ConfigMap). Both may be set.
	CABundle string
	CAPEM    []byte
}

func (c S3Config) String() string {
	scheme := "http"
	if c.Secure {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s (region %s)", scheme, c.Endpoint, c.Region)
}

// S3ConfigFromEnv reads the standard AWS variables: AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, optional AWS_SESSION_TOKEN and AWS_CA_BUNDLE,
// AWS_REGION (else AWS_DEFAULT_REGION, else us-east-1) and
// AWS_ENDPOINT_URL, whose scheme decides TLS (unset: AWS S3 over HTTPS).
// Without keys, credentials come from the identity chain (credentials.go):
// the AWS_PROFILE profile of the shared credentials file, a web identity
// token, a container credentials endpoint, or the instance's metadata
// service; BLASTFLEET_S3_CREDENTIALS=anonymous sends unsigned requests.
func S3ConfigFromEnv() (S3Config, error) {
	return s3ConfigFrom(storeEnv{})
}

// s3ConfigFrom reads e's variables (store.go names them).
func s3ConfigFrom(e storeEnv) (S3Config, error) {
	c := S3Config{
		Endpoint:     "s3.amazonaws.com",
		Secure:       true,
		Region:       firstNonEmpty(e.get("AWS_REGION"), e.get("AWS_DEFAULT_REGION"), "us-east-1"),
		AccessKey:    e.get("AWS_ACCESS_KEY_ID"),
		SecretKey:    e.get("AWS_SECRET_ACCESS_KEY"),
		SessionToken: e.get("AWS_SESSION_TOKEN"),
		CABundle:     e.get("AWS_CA_BUNDLE"),
		Profile:      e.get("AWS_PROFILE"),
		STSEndpoint:  firstNonEmpty(e.get("AWS_ENDPOINT_URL_STS"), os.Getenv("AWS_ENDPOINT_URL_STS")),
	}
	if err := c.resolveCredentials(e); err != nil {
		return c, err
	}
	if ep := e.get("AWS_ENDPOINT_URL"); ep != "" {
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("%s %q: want http://host[:port] or https://host[:port]", e.name("AWS_ENDPOINT_URL"), ep)
		}
		if u.Path != "" && u.Path != "/" {
			return c, fmt.Errorf("%s %q: a path is not supported", e.name("AWS_ENDPOINT_URL"), ep)
		}
		c.Endpoint, c.Secure, c.PathStyle = u.Host, u.Scheme == "https", true
	}
	return c, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// identityHints are the variables by which a pod or host is given an
// identity the chain can use without keys.
var identityHints = []string{"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"}

func hasIdentityHint() bool {
	for _, k := range identityHints {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}
