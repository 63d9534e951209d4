package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// clusterTarget is a real cluster with blastfleet (CRDs, operator) and
// the MPI operator installed:
//
//	E2E_KUBECONFIG     its kubeconfig (this turns the cluster mode on)
//	E2E_NAMESPACE      namespace to work in (default "default")
//	E2E_S3_ENDPOINT    the object store as the cluster's pods reach it,
//	                   e.g. http://minio.minio.svc:9000 (required)
//	E2E_S3_BUCKET      bucket (default "blastfleet")
//	E2E_S3_SECRET      Secret in the namespace with AWS_ACCESS_KEY_ID and
//	                   AWS_SECRET_ACCESS_KEY (default "minio-credentials")
//	AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL, AWS_REGION
//	                   how this test reaches the same store (e.g. through
//	                   kubectl port-forward)
//
// Object names get a random suffix, and the test deletes what it
// created; the ledgers stay in the bucket.
func clusterTarget(t *testing.T, kubeconfig string) *target {
	t.Helper()
	endpoint := os.Getenv("E2E_S3_ENDPOINT")
	if endpoint == "" {
		t.Fatal("E2E_KUBECONFIG is set but E2E_S3_ENDPOINT is not: set it to the object store's endpoint as the cluster's pods reach it")
	}
	bucket := envOr("E2E_S3_BUCKET", "blastfleet")
	bins := testenv.BuiltBinaries(t)
	tg := &target{
		kubeconfig: kubeconfig, ns: envOr("E2E_NAMESPACE", "default"),
		endpoint: endpoint, bucket: bucket, secret: envOr("E2E_S3_SECRET", "minio-credentials"),
		cli: bins.CLI, suffix: randomSuffix(t),
		store: func(prefix string) (objstore.Store, error) {
			return objstore.Open(t.Context(), "s3://"+bucket+"/"+strings.Trim(prefix, "/"))
		},
	}
	t.Logf("running against the cluster of %s, namespace %s, object store %s bucket %s", kubeconfig, tg.ns, endpoint, bucket)
	return tg
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// localOnly skips a test that needs the local stack's processes.
func (tg *target) localOnly(t *testing.T, why string) {
	t.Helper()
	if tg.stack == nil {
		t.Skipf("needs the local stack (%s); E2E_KUBECONFIG runs against a cluster, whose processes this test cannot reach", why)
	}
}
