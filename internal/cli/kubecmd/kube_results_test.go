package kubecmd

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// clearAWS unsets the AWS variables for the rest of the test.
func clearAWS(t *testing.T) {
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "BLASTFLEET_S3_CREDENTIALS"} {
		t.Setenv(k, "")
	}
	// Nor a shared credentials file of the machine's user.
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
}

func testResults(t *testing.T, f *kubeFixture) {
	// The output's endpoint, as in a cluster, is a name only the cluster
	// resolves: this machine reaches MinIO at AWS_ENDPOINT_URL or --endpoint.
	c := &v1alpha1.SearchCampaign{
		ObjectMeta: metav1.ObjectMeta{Name: "res", Namespace: "default"},
		Spec: v1alpha1.SearchCampaignSpec{DatabaseRef: v1alpha1.DatabaseReference{Name: fxDB}, Program: "blastp",
			Queries: v1alpha1.Queries{ObjectReference: v1alpha1.ObjectReference{Key: "q.fa"}}, Output: f.storage("campaigns")},
	}
	c.Spec.Output.Endpoint = "http://minio.minio.svc:9000"
	f.create(c)
	want := f.ledgerWithCommits("default", "res", 7, 4)
	sum := sha256.Sum256([]byte(want))
	f.setStatus("default", "res", func(s *v1alpha1.SearchCampaignStatus) {
		s.Phase, s.Location = v1alpha1.CampaignComplete, "s3://blastfleet/campaigns/default/res"
		s.ResultSHA256, s.ResultBytes = hex.EncodeToString(sum[:]), int64(len(want))
	})

	// Credentials from the environment, to a file.
	clearAWS(t)
	f.minio.Setenv(t)
	file := filepath.Join(t.TempDir(), "res.tsv")
	_, errOut, err := f.cli("results", "res", "-o", file)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if got, _ := os.ReadFile(file); string(got) != want || !strings.Contains(errOut, "wrote 7 queries' results") {
		t.Errorf("results file %q, want %q (stderr %q)", got, want, errOut)
	}
	if out := f.mustCLI("results", "res"); out != want {
		t.Errorf("results on stdout %q, want %q", out, want)
	}

	// No credentials: say how to get them; --from-secret reads the
	// campaign's Secret and its endpoint.
	clearAWS(t)
	if _, _, err := f.cli("results", "res"); err == nil || !strings.Contains(err.Error(), "s3 credentials missing: set AWS_ACCESS_KEY_ID") || !strings.Contains(err.Error(), "or add --from-secret") {
		t.Errorf("without credentials: %v", err)
	}
	if out := f.mustCLI("results", "res", "--from-secret", "--endpoint", f.minio.Endpoint); out != want {
		t.Errorf("results --from-secret %q, want %q", out, want)
	}

	// The store no longer holds what the operator recorded (rewritten,
	// parts and markers alike, by whoever can write it): the status, which
	// they cannot write, is what the results are checked against.
	f.setStatus("default", "res", func(s *v1alpha1.SearchCampaignStatus) {
		other := sha256.Sum256([]byte("the result the operator assembled\n"))
		s.ResultSHA256 = hex.EncodeToString(other[:])
	})
	file2 := filepath.Join(t.TempDir(), "res2.tsv")
	if _, _, err := f.cli("results", "res", "--from-secret", "--endpoint", f.minio.Endpoint, "-o", file2); err == nil ||
		!strings.Contains(err.Error(), "differ from SearchCampaign default/res status.resultSHA256") {
		t.Errorf("results against another status.resultSHA256: %v", err)
	}
	if _, err := os.Stat(file2); !os.IsNotExist(err) {
		t.Errorf("a refused results wrote %s: %v", file2, err)
	}
	// No record at all: refused, not left unchecked.
	f.setStatus("default", "res", func(s *v1alpha1.SearchCampaignStatus) { s.ResultSHA256, s.ResultBytes = "", 0 })
	if _, _, err := f.cli("results", "res", "--from-secret", "--endpoint", f.minio.Endpoint); err == nil ||
		!strings.Contains(err.Error(), "has no status.resultSHA256") {
		t.Errorf("results without status.resultSHA256: %v", err)
	}
}

func testResultsIncomplete(t *testing.T, f *kubeFixture) {
	clearAWS(t)
	f.campaign("default", "res-part")
	f.ledgerWithCommits("default", "res-part", 6, 1)
	file := filepath.Join(t.TempDir(), "part.tsv")
	_, _, err := f.cli("results", "res-part", "--from-secret", "-o", file)
	if err == nil || !strings.Contains(err.Error(), "campaign res-part is incomplete: missing chunks (query ranges) [2,4) [4,6) (2 ranges, 4 queries); refusing to write partial results") ||
		!errors.Is(err, ledger.ErrIncomplete) {
		t.Errorf("incomplete: %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a refused results wrote %s: %v", file, err)
	}

	// Not planned yet: no ledger at all.
	f.campaign("default", "res-new")
	if _, _, err := f.cli("results", "res-new", "--from-secret"); err == nil || !strings.Contains(err.Error(), "campaign res-new has no plan at s3://blastfleet/campaigns/default/res-new yet") {
		t.Errorf("no plan: %v", err)
	}
}
