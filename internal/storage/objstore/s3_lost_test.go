package objstore

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/faultproxy"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// behindProxy is a store on MinIO reached through a fault proxy.
func behindProxy(t *testing.T, f faultproxy.Faults) (Store, *faultproxy.Proxy) {
	t.Helper()
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "lost")
	p, err := faultproxy.Start(m.Endpoint, 1, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	m.Setenv(t)
	t.Setenv("AWS_ENDPOINT_URL", p.URL)
	st, err := Open(context.Background(), "s3://lost/")
	if err != nil {
		t.Fatal(err)
	}
	return st, p
}

// TestS3CompleteResponseLost: the server completed the upload but its
// answer was lost; the client's retry finds no such upload. The object
// is whole, so Complete must succeed, not fail the chunk that wrote it.
func TestS3CompleteResponseLost(t *testing.T) {
	completing := func(r *http.Request) bool {
		return r.Method == http.MethodPost && r.URL.Query().Has("uploadId")
	}
	st, p := behindProxy(t, faultproxy.Faults{LostResponse: 1, Max: 1, Only: completing})
	ctx := context.Background()
	up, err := st.NewUpload(ctx, "obj")
	if err != nil {
		t.Fatal(err)
	}
	a, b := bytes.Repeat([]byte("a"), 5<<20), []byte("tail")
	pa, err := up.PutPart(ctx, 1, a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := up.PutPart(ctx, 2, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := up.Complete(ctx, []Part{pb, pa}); err != nil {
		t.Fatalf("Complete whose response was lost after the server completed it: %v", err)
	}
	if n := p.Counts(); n.Lost() != 1 {
		t.Fatalf("proxy counts %v: want the completion's response lost once", n)
	}
	got, _, err := st.GetBytes(ctx, "obj")
	if err != nil || !bytes.Equal(got, append(a, b...)) {
		t.Fatalf("object after Complete: %d bytes, %v", len(got), err)
	}
	// An upload that never completed is still reported missing.
	up2, err := st.NewUpload(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := up2.PutPart(ctx, 1, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := up2.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if err := up2.Complete(ctx, []Part{p2}); err == nil || !strings.Contains(err.Error(), "other") {
		t.Fatalf("Complete of an aborted upload: %v, want an error", err)
	}
}
