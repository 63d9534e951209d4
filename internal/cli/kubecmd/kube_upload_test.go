package kubecmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// testSubmitUpload: --queries naming a file here checks it, uploads it
// with progress beside the campaign's ledger, and points spec.queries at
// it; a bad record fails before anything is uploaded or created; a dry run
// names the key and uploads nothing.
func testSubmitUpload(t *testing.T, f *kubeFixture) {
	f.minio.Setenv(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "local.fa")
	data := []byte(">p1 first\nMKVLAAGIVGLLLAQPAHAESKWLTEQ\n>p2 second\nMSTNPKPQRKTKRNTNRRPQDVKFPGG\n")
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(name, queries string, extra ...string) []string {
		return append([]string{"submit", "--name", name, "--database", fxDB, "--queries", queries, "--program", "blastp"}, extra...)
	}
	_, errOut, err := f.cli(args("up1", good)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	key := "campaigns/default/up1/queries/local.fa"
	if sp := f.get("default", "up1").Spec; sp.Queries.Key != key || sp.Queries.Bucket != "" {
		t.Errorf("spec.queries %+v, want key %s in the output bucket", sp.Queries, key)
	}
	if !strings.Contains(errOut, "uploading "+good+" to s3://"+fxBucket+"/"+key) || !strings.Contains(errOut, "done in") {
		t.Errorf("no upload progress:\n%s", errOut)
	}
	got, _, err := f.store("").GetBytes(context.Background(), key)
	if err != nil || string(got) != string(data) {
		t.Errorf("uploaded %q (%v), want the file's bytes", got, err)
	}

	// A letter outside the protein alphabet: named, nothing created.
	bad := filepath.Join(dir, "bad.fa")
	if err := os.WriteFile(bad, []byte(">p1\nMKV1AAG\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.cli(args("up2", bad)...); err == nil || !strings.Contains(err.Error(), `record "p1"`) {
		t.Errorf("bad queries: %v, want an error naming the record", err)
	}
	var c v1alpha1.SearchCampaign
	if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "up2"}, &c); !apierrors.IsNotFound(err) {
		t.Errorf("a campaign with bad queries was created: %v", err)
	}
	if _, err := f.store("").Stat(context.Background(), "campaigns/default/up2/queries/bad.fa"); !errors.Is(err, objstore.ErrNotExist) {
		t.Errorf("bad queries uploaded: %v", err)
	}

	// A mistyped path is refused at once, naming it: only s3:// is remote
	// (a bare key once became a campaign that failed later).
	typo := filepath.Join(dir, "lcoal.fa")
	if _, _, err := f.cli(args("up4", typo)...); err == nil || !strings.Contains(err.Error(), "--queries "+typo+": no such file here") ||
		!strings.Contains(err.Error(), "s3://BUCKET/KEY") {
		t.Errorf("mistyped --queries: %v, want an error naming the path", err)
	}
	if _, _, err := f.cli(args("up4", dir)...); err == nil || !strings.Contains(err.Error(), "--queries "+dir+": not a regular file") {
		t.Errorf("--queries DIR: %v", err)
	}
	if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "up4"}, &c); !apierrors.IsNotFound(err) {
		t.Errorf("a campaign with mistyped queries was created: %v", err)
	}

	// A dry run names the key and uploads nothing.
	out, errOut, err := f.cli(args("up3", good, "--dry-run")...)
	if err != nil || !strings.Contains(out, "campaigns/default/up3/queries/local.fa") || !strings.Contains(errOut, "would upload") {
		t.Errorf("dry run: %v\n%s\n%s", err, out, errOut)
	}
	if _, err := f.store("").Stat(context.Background(), "campaigns/default/up3/queries/local.fa"); !errors.Is(err, objstore.ErrNotExist) {
		t.Errorf("a dry run uploaded: %v", err)
	}

	// Several files and a tarball: one queries object, in the order given.
	second := filepath.Join(dir, "second.fa.gz")
	if err := os.WriteFile(second, gz(t, ">p3 third\nMKKLLPT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tgz := filepath.Join(dir, "more.tgz")
	tarball(t, tgz, true, [2]string{"more/p4.fa", ">p4\nMAAAK\n"})
	if _, errOut, err := f.cli(args("up5", good, "--queries", second, "--queries", tgz)...); err != nil {
		t.Fatalf("several --queries: %v\n%s", err, errOut)
	}
	const joinedKey = "campaigns/default/up5/queries/queries.fa"
	if sp := f.get("default", "up5").Spec; sp.Queries.Key != joinedKey {
		t.Errorf("several --queries: spec.queries %+v, want key %s", sp.Queries, joinedKey)
	}
	got, _, err = f.store("").GetBytes(context.Background(), joinedKey)
	if want := string(data) + ">p3 third\nMKKLLPT\n>p4\nMAAAK\n"; err != nil || string(got) != want {
		t.Errorf("joined queries %q (%v), want %q", got, err, want)
	}
	if _, _, err := f.cli(args("up6", tgz)...); err != nil {
		t.Errorf("a tarball: %v", err)
	} else if sp := f.get("default", "up6").Spec; sp.Queries.Key != "campaigns/default/up6/queries/more.fa" {
		t.Errorf("a tarball: spec.queries %+v", sp.Queries)
	}
	// A bad record in the second file: named, nothing created.
	if err := os.WriteFile(second, gz(t, ">p3\nMK1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.cli(args("up7", good, "--queries", second)...); err == nil || !strings.Contains(err.Error(), "second.fa.gz") || !strings.Contains(err.Error(), `record "p3"`) {
		t.Errorf("a bad record in the second file: %v", err)
	}
	if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "up7"}, &c); !apierrors.IsNotFound(err) {
		t.Errorf("a campaign with a bad second file was created: %v", err)
	}
}
