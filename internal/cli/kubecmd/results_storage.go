package kubecmd

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// storageFlags are how results and report reach a campaign's output from
// this machine: --endpoint and --from-secret.
type storageFlags struct {
	endpoint   string
	fromSecret bool
}

func (f *storageFlags) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.endpoint, "endpoint", "", "S3 endpoint to read from, e.g. http://127.0.0.1:9000 (default: AWS_ENDPOINT_URL, else the campaign's)")
	cmd.Flags().BoolVar(&f.fromSecret, "from-secret", false, "read the S3 credentials from the campaign's Secret through the API server")
}

// s3Config is how this machine reaches a campaign's output.
//
// Endpoint: --endpoint, else AWS_ENDPOINT_URL, else spec.output.endpoint,
// else AWS S3: the spec's endpoint is often a name only the cluster
// resolves (http://minio.minio.svc:9000), so the user's own settings win.
// Credentials: this machine's (objstore.S3ConfigFromEnv: the AWS_*
// variables, a profile, an identity), or with fromSecret the campaign's
// credentials Secret read through the API server (which needs get on
// Secrets in that namespace). AWS_CA_BUNDLE is trusted either way.
func (f *storageFlags) s3Config(ctx context.Context, kc *kube, c *v1alpha1.SearchCampaign) (objstore.S3Config, error) {
	out := c.Spec.Output
	cfg := objstore.S3Config{
		Endpoint: "s3.amazonaws.com",
		Secure:   true,
		Region:   cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"), out.Region, "us-east-1"),
	}
	if ep := cmp.Or(f.endpoint, os.Getenv("AWS_ENDPOINT_URL"), out.Endpoint); ep != "" {
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cfg, fmt.Errorf("S3 endpoint %q: want http(s)://host[:port]", ep)
		}
		cfg.Endpoint, cfg.Secure, cfg.PathStyle = u.Host, u.Scheme == "https", true
	}
	cfg.CABundle = os.Getenv("AWS_CA_BUNDLE")
	if !f.fromSecret {
		// This machine's own credentials, as every other command reads
		// them: keys, a profile, an identity, or anonymous.
		env, err := objstore.S3ConfigFromEnv()
		if err != nil {
			return cfg, fmt.Errorf("%w; or add --from-secret to use the campaign's credentials Secret through the API server", err)
		}
		cfg.AccessKey, cfg.SecretKey, cfg.SessionToken = env.AccessKey, env.SecretKey, env.SessionToken
		cfg.Credentials, cfg.Profile, cfg.STSEndpoint = env.Credentials, env.Profile, env.STSEndpoint
		return cfg, nil
	}
	ref := out.CredentialsSecretRef
	if ref == nil {
		return cfg, fmt.Errorf("campaign %s names no credentials Secret (spec.output.credentialsSecretRef)", c.Name)
	}
	var sec corev1.Secret
	if err := kc.c.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}, &sec); err != nil {
		return cfg, fmt.Errorf("--from-secret: reading Secret %s/%s: %w", c.Namespace, ref.Name, kc.explain(err))
	}
	idKey, secretKey := cmp.Or(ref.AccessKeyIDKey, "AWS_ACCESS_KEY_ID"), cmp.Or(ref.SecretAccessKeyKey, "AWS_SECRET_ACCESS_KEY")
	cfg.AccessKey, cfg.SecretKey = string(sec.Data[idKey]), string(sec.Data[secretKey])
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return cfg, fmt.Errorf("--from-secret: Secret %s/%s has no %s or no %s", c.Namespace, ref.Name, idKey, secretKey)
	}
	return cfg, nil
}

// store is the campaign's ledger location (campaignLocation) as
// this machine reaches it; the config says where, for errors.
func (f *storageFlags) store(ctx context.Context, kc *kube, c *v1alpha1.SearchCampaign) (objstore.Store, objstore.S3Config, error) {
	loc := campaignLocation(c)
	cfg, err := f.s3Config(ctx, kc, c)
	if err != nil {
		return nil, cfg, err
	}
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(loc, "s3://"), "/")
	st, err := objstore.NewS3(cfg, bucket, prefix)
	if err != nil {
		return nil, cfg, storageError(fmt.Errorf("campaign %s: ledger at %s: %w", c.Name, loc, err))
	}
	return st, cfg, nil
}

// notPlanned is the refusal for a campaign without a ledger yet: why says
// what cannot be done before the operator plans it.
func notPlanned(kc *kube, c *v1alpha1.SearchCampaign, why string) error {
	return fmt.Errorf("campaign %s has no plan at %s yet (phase %s): %s; follow it with %s",
		c.Name, campaignLocation(c), orDash(string(c.Status.Phase)), why, kc.suggest(c.Namespace, "status "+c.Name+" --watch"))
}
