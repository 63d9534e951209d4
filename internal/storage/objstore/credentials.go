package objstore

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/minio/minio-go/v7/pkg/credentials"
)

// CredentialsSource is where a store's request credentials come from.
type CredentialsSource string

const (
	// CredentialsKeys: an access key and secret (from the environment, a
	// Secret, or the shared credentials file). The default.
	CredentialsKeys CredentialsSource = "keys"
	// CredentialsAnonymous: unsigned requests, for public buckets.
	CredentialsAnonymous CredentialsSource = "anonymous"
	// CredentialsIdentity: the standard chain, for a pod's or host's own
	// identity: the shared credentials file, a web identity token
	// (AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN: IRSA), a container
	// credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI or
	// _RELATIVE_URI: ECS, EKS Pod Identity), else the instance metadata
	// service. Short-lived credentials are refreshed before they expire.
	CredentialsIdentity CredentialsSource = "identity"
)

// resolveCredentials decides c's credentials from e: keys if set, then
// the credentials variable's choice, then the shared credentials file,
// then the identity chain when the environment gives an identity.
func (c *S3Config) resolveCredentials(e storeEnv) error {
	mode := CredentialsSource(os.Getenv(e.role.CredentialsEnv()))
	switch mode {
	case CredentialsAnonymous, CredentialsIdentity:
		c.AccessKey, c.SecretKey, c.SessionToken = "", "", ""
		c.Credentials = mode
		return nil
	case "", CredentialsKeys:
	default:
		return fmt.Errorf("%s=%q: want %s, %s or %s", e.role.CredentialsEnv(), mode, CredentialsKeys, CredentialsIdentity, CredentialsAnonymous)
	}
	c.Credentials = CredentialsKeys
	if c.AccessKey != "" && c.SecretKey != "" {
		return nil
	}
	if c.AccessKey != "" || c.SecretKey != "" {
		return fmt.Errorf("s3 credentials incomplete: set both %s and %s", e.name("AWS_ACCESS_KEY_ID"), e.name("AWS_SECRET_ACCESS_KEY"))
	}
	if v, ok := sharedCredentials(c.Profile); ok {
		c.AccessKey, c.SecretKey, c.SessionToken = v.AccessKeyID, v.SecretAccessKey, v.SessionToken
		return nil
	}
	if mode == "" && hasIdentityHint() {
		c.Credentials = CredentialsIdentity
		return nil
	}
	return fmt.Errorf("s3 credentials missing: set %s and %s, or %s with a shared credentials file (~/.aws/credentials or AWS_SHARED_CREDENTIALS_FILE), or %s=%s for this pod's or host's identity (IRSA, pod identity, instance metadata) or =%s for a public bucket",
		e.name("AWS_ACCESS_KEY_ID"), e.name("AWS_SECRET_ACCESS_KEY"), e.name("AWS_PROFILE"), e.role.CredentialsEnv(), CredentialsIdentity, CredentialsAnonymous)
}

// sharedCredentials reads the AWS shared credentials file (what an HPC
// site's users keep instead of keys in their environment): the file of
// AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials, at profile, else
// AWS_PROFILE, else "default".
func sharedCredentials(profile string) (credentials.Value, bool) {
	v, err := credentials.NewFileAWSCredentials("", profile).Get()
	if err != nil || v.AccessKeyID == "" || v.SecretAccessKey == "" {
		return credentials.Value{}, false
	}
	return v, true
}

// provider is the credentials minio-go signs c's requests with. The
// identity chain's STS and metadata calls go through the store's own
// HTTP client, so they trust the same authorities.
func (c S3Config) provider() *credentials.Credentials {
	switch {
	case c.Credentials == CredentialsAnonymous:
		return credentials.NewStatic("", "", "", credentials.SignatureAnonymous)
	case c.Credentials == CredentialsIdentity && c.AccessKey == "":
		iam := &credentials.IAM{}
		if os.Getenv("AWS_WEB_IDENTITY_TOKEN_FILE") != "" {
			// Only for the token exchange: IAM uses Endpoint for the
			// container and metadata services too.
			iam.Endpoint = c.webIdentitySTS()
		}
		return credentials.New(&identityChain{
			names:     []string{"shared credentials file", "web identity, container or instance credentials"},
			providers: []credentials.Provider{&credentials.FileAWSCredentials{Profile: c.Profile}, iam},
		})
	}
	return credentials.NewStaticV4(c.AccessKey, c.SecretKey, c.SessionToken)
}

// identityChain is minio-go's Chain, except that when no provider has
// credentials it says why (a token the STS refused, an unreachable
// metadata service) instead of falling back to anonymous requests, which
// the store would answer with a bare Access Denied.
type identityChain struct {
	names     []string
	providers []credentials.Provider
	curr      credentials.Provider
}

func (c *identityChain) RetrieveWithCredContext(cc *credentials.CredContext) (credentials.Value, error) {
	var errs []error
	for i, p := range c.providers {
		v, err := p.RetrieveWithCredContext(cc)
		if err == nil && v.AccessKeyID != "" && v.SecretAccessKey != "" {
			c.curr = p
			return v, nil
		}
		if err == nil {
			err = errors.New("no credentials")
		}
		errs = append(errs, fmt.Errorf("%s: %w", c.names[i], err))
	}
	c.curr = nil
	return credentials.Value{}, fmt.Errorf("%w: %w", ErrNoIdentity, errors.Join(errs...))
}

// ErrNoIdentity is the identity chain finding no credentials; the error
// wrapping it says what each source answered.
var ErrNoIdentity = errors.New("no credentials from this pod's or host's identity")

// Retrieve is RetrieveWithCredContext with minio-go's default context.
func (c *identityChain) Retrieve() (credentials.Value, error) { return c.RetrieveWithCredContext(nil) }

// IsExpired is the current provider's, so temporary credentials are
// fetched again before they expire.
func (c *identityChain) IsExpired() bool { return c.curr == nil || c.curr.IsExpired() }

// awsRegion is what an AWS region name may hold: minio-go would put any
// other string into the STS host name ("https://sts." + region +
// ".amazonaws.com"), so a region such as "evil.example/" would send the
// token to evil.example.
var awsRegion = regexp.MustCompile(`^[a-z]{2}(-[a-z0-9]+)+$`)

// webIdentitySTS is where the web identity token is sent for exchange:
// STSEndpoint (AWS_ENDPOINT_URL_STS, which whoever runs the process sets,
// never derived from a store's endpoint), else AWS STS of the store's
// region, else the global AWS STS. Never the store's own endpoint: the
// token is the pod's or host's identity, and whoever chose the store
// could replay it against AWS.
func (c S3Config) webIdentitySTS() string {
	switch {
	case c.STSEndpoint != "":
		return c.STSEndpoint
	case awsRegion.MatchString(c.Region) && strings.HasPrefix(c.Region, "cn-"):
		return "https://sts." + c.Region + ".amazonaws.com.cn"
	case awsRegion.MatchString(c.Region):
		return "https://sts." + c.Region + ".amazonaws.com"
	}
	return credentials.DefaultSTSRoleEndpoint
}
