package objstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestS3(t *testing.T) {
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "conformance")
	m.Setenv(t)
	open := func() Store {
		st, err := Open(context.Background(), "s3://conformance/root/prefix/")
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := open()
	if got := st.URL("a/b"); got != "s3://conformance/root/prefix/a/b" {
		t.Errorf("URL = %s", got)
	}
	testStore(t, st, open)

	// The prefix really roots the store: a sibling prefix sees nothing.
	sib, err := Open(context.Background(), "s3://conformance/root/other")
	if err != nil {
		t.Fatal(err)
	}
	if infos, err := sib.List(context.Background(), ""); err != nil || len(infos) != 0 {
		t.Errorf("sibling prefix lists %d objects, err %v", len(infos), err)
	}
}

func TestS3MissingBucket(t *testing.T) {
	m := testenv.StartMinIO(t)
	m.Setenv(t)
	st, err := Open(context.Background(), "s3://no-such-bucket")
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Get(context.Background(), "k")
	if err == nil || errors.Is(err, ErrNotExist) || !strings.Contains(err.Error(), "no-such-bucket") {
		t.Errorf("Get in a missing bucket = %v, want an error naming the bucket, not ErrNotExist", err)
	}
}
