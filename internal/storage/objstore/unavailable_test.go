package objstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestUnavailable: a store that is down, or answers 5xx, is unavailable;
// a missing key, a lost precondition or a bad key is not.
func TestUnavailable(t *testing.T) {
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "avail")
	cfg := S3Config{Endpoint: m.Host, PathStyle: true, Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey}
	st, err := NewS3(cfg, "avail", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, missing := st.GetBytes(ctx, "nope")
	if _, err := st.PutIfAbsent(ctx, "k", []byte("x")); err != nil {
		t.Fatal(err)
	}
	_, lost := st.PutIfAbsent(ctx, "k", []byte("y"))
	for _, err := range []error{missing, lost, st.Put(ctx, "../bad", nil, 0), errors.New("plain")} {
		if err == nil || Unavailable(err) {
			t.Errorf("Unavailable(%v) = true (or no error), want false", err)
		}
	}

	// A port nothing listens on: refused, after the client's retries.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Endpoint = l.Addr().String()
	l.Close()
	down, err := NewS3(cfg, "avail", "")
	if err != nil {
		t.Fatal(err)
	}
	_, _, refused := down.GetBytes(ctx, "k")
	if !Unavailable(refused) || !Unavailable(fmt.Errorf("wrapped: %w", refused)) {
		t.Errorf("Unavailable(%v) = false for a store that is down", refused)
	}
}
