package kubecmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/bio/queries"
	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// localQueries reports whether --queries names a file on this machine,
// which submit uploads: anything but a URL. (A bare key once meant an
// object in the output bucket, so a mistyped path made a campaign that
// failed later, or read another object of that name.)
func localQueries(q string) bool { return !strings.Contains(q, "://") }

// checkLocalQueries refuses, naming the path, a --queries that is no
// file here.
func checkLocalQueries(q string) error {
	fi, err := os.Stat(q)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--queries %s: no such file here (a file here is checked and uploaded beside the campaign; "+
			"an object already in a bucket is named s3://BUCKET/KEY)", q)
	case err != nil:
		return fmt.Errorf("--queries: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("--queries %s: not a regular file; want a FASTA file (gzip if it ends in .gz)", q)
	}
	return nil
}

// uploadQueries validates a local query file as the planner will, then
// puts it beside the campaign's ledger (<prefix>/<namespace>/<name>/
// queries/<file>) in the output bucket, showing progress, and points
// spec.queries at it. A dry run names the key and uploads nothing.
func uploadQueries(ctx context.Context, obj *unstructured.Unstructured, file, program string, dryRun bool, progress io.Writer) error {
	p, err := blast.ParseProgram(program)
	if err != nil {
		return fmt.Errorf("--program: %w", err)
	}
	// A bad record fails here, before anything is uploaded or created.
	if _, err := queries.Read(ctx, file, p, func(*fasta.Record) error { return nil }); err != nil {
		return err
	}
	key, err := uploadBeside(ctx, obj, file, "queries", "--queries", dryRun, progress)
	if err != nil {
		return err
	}
	return unstructured.SetNestedStringMap(obj.Object, map[string]string{"key": key}, "spec", "queries")
}

// uploadBeside puts a file here beside the campaign's ledger, in the
// output bucket under <prefix>/<namespace>/<name>/<dir>/<file>, showing
// progress, and returns its key; a dry run names the key and uploads
// nothing. flag names the file in errors.
func uploadBeside(ctx context.Context, obj *unstructured.Unstructured, file, dir, flag string, dryRun bool, progress io.Writer) (string, error) {
	out := map[string]string{}
	for _, field := range []string{"endpoint", "region", "bucket", "prefix"} {
		out[field], _, _ = unstructured.NestedString(obj.Object, "spec", "output", field)
	}
	if out["bucket"] == "" {
		return "", fmt.Errorf("%s %s: no output bucket to upload it to (give --bucket, or a database with storage)", flag, file)
	}
	prefix := strings.Trim(cmp.Or(out["prefix"], "campaigns"), "/")
	key := path.Join(prefix, obj.GetNamespace(), obj.GetName(), dir, filepath.Base(file))
	dest := "s3://" + out["bucket"] + "/" + key
	if dryRun {
		fmt.Fprintf(progress, "would upload %s to %s (a dry run uploads nothing)\n", file, dest)
		return key, nil
	}
	st, err := uploadStore(out)
	if err != nil {
		return "", fmt.Errorf("uploading %s: %w", file, err)
	}
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	// A bar on a terminal, a line now and then elsewhere; and a last line
	// either way, saying where the file went.
	what, start := fmt.Sprintf("uploading %s to %s", file, dest), time.Now()
	bar := cli.NewBar(progress, what, fi.Size(), cli.Bytes)
	err = st.Put(ctx, key, bar.Reader(f), fi.Size())
	bar.Finish()
	if err != nil {
		return "", fmt.Errorf("uploading %s to %s: %w", file, dest, err)
	}
	fmt.Fprintf(progress, "%s: %s, done in %s\n", what, humanize.IBytes(uint64(fi.Size())), time.Since(start).Round(time.Millisecond))
	return key, nil
}

// uploadStore is the output bucket as this machine reaches it: the
// AWS_* variables or a shared credentials profile, and AWS_ENDPOINT_URL
// else the campaign's endpoint (a name the cluster resolves may not
// resolve here; AWS_ENDPOINT_URL then says where).
func uploadStore(out map[string]string) (objstore.Store, error) {
	cfg, err := objstore.S3ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	if os.Getenv("AWS_ENDPOINT_URL") == "" && out["endpoint"] != "" {
		u, err := url.Parse(out["endpoint"])
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("spec.output.endpoint %q: want http(s)://host[:port]", out["endpoint"])
		}
		cfg.Endpoint, cfg.Secure, cfg.PathStyle = u.Host, u.Scheme == "https", true
	}
	if r := out["region"]; r != "" && os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") == "" {
		cfg.Region = r
	}
	return objstore.NewS3(cfg, out["bucket"], "")
}
