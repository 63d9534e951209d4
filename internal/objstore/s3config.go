package objstore

import (
	"errors"
	"fmt"
	"net/url"
	"os"

	"github.com/minio/minio-go/v7/pkg/credentials"
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
	// CABundle is a PEM file of certificate authorities trusted beside the
	// system's, for a private endpoint's own CA (AWS_CA_BUNDLE).
	CABundle string
}

func (c S3Config) String() string {
	scheme := "http"
	if c.Secure {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s (region %s)", scheme, c.Endpoint, c.Region)
}

// S3ConfigFromEnv reads the standard AWS variables: AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, optional AWS_SESSION_TOKEN and AWS_CA_BUNDLE (without the keys, the
// AWS_PROFILE profile, else "default", of the shared credentials file), AWS_REGION (else
// AWS_DEFAULT_REGION, else us-east-1) and AWS_ENDPOINT_URL, whose scheme
// decides TLS (unset: AWS S3 over HTTPS).
func S3ConfigFromEnv() (S3Config, error) {
	c := S3Config{
		Endpoint:     "s3.amazonaws.com",
		Secure:       true,
		Region:       firstNonEmpty(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"), "us-east-1"),
		AccessKey:    os.Getenv("AWS_ACCESS_KEY_ID"),
		SecretKey:    os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: os.Getenv("AWS_SESSION_TOKEN"),
		CABundle:     os.Getenv("AWS_CA_BUNDLE"),
	}
	if c.AccessKey == "" && c.SecretKey == "" {
		if v, ok := sharedCredentials(); ok {
			c.AccessKey, c.SecretKey, c.SessionToken = v.AccessKeyID, v.SecretAccessKey, v.SessionToken
		}
	}
	if c.AccessKey == "" || c.SecretKey == "" {
		return c, errors.New("s3 credentials missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with a shared credentials file (~/.aws/credentials or AWS_SHARED_CREDENTIALS_FILE)")
	}
	if ep := os.Getenv("AWS_ENDPOINT_URL"); ep != "" {
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("AWS_ENDPOINT_URL %q: want http://host[:port] or https://host[:port]", ep)
		}
		if u.Path != "" && u.Path != "/" {
			return c, fmt.Errorf("AWS_ENDPOINT_URL %q: a path is not supported", ep)
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

// sharedCredentials reads the AWS shared credentials file (what an HPC
// site's users keep instead of keys in their environment): the file of
// AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials, at profile
// AWS_PROFILE, else "default".
func sharedCredentials() (credentials.Value, bool) {
	v, err := credentials.NewFileAWSCredentials("", os.Getenv("AWS_PROFILE")).Get()
	if err != nil || v.AccessKeyID == "" || v.SecretAccessKey == "" {
		return credentials.Value{}, false
	}
	return v, true
}
