package objstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// A folder of a store is a store: the conformance suite on a directory's
// and a bucket's folder, and nothing written through it lands outside.
func TestPrefixed(t *testing.T) {
	m := testenv.StartMinIO(t)
	m.MakeBucket(t, "prefixed")
	m.Setenv(t)
	dir := filepath.Join(t.TempDir(), "store")
	for name, open := range map[string]func() Store{
		"dir": func() Store {
			d, err := NewDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		"s3": func() Store {
			st, err := Open(context.Background(), "s3://prefixed/root")
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
	} {
		t.Run(name, func(t *testing.T) {
			folder := func() Store {
				st, err := Prefixed(open(), "builds/b1/")
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
			st := folder()
			testStore(t, st, folder)
			if got, want := st.URL("x"), open().URL("builds/b1/x"); got != want {
				t.Errorf("URL = %s, want %s", got, want)
			}
			infos, err := open().List(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			for _, info := range infos {
				if len(info.Key) < len("builds/b1/") || info.Key[:len("builds/b1/")] != "builds/b1/" {
					t.Errorf("%s written outside the folder", info.Key)
				}
			}
			if len(infos) == 0 {
				t.Error("the folder's objects are not in the store")
			}
		})
	}
	for _, bad := range []string{"", "/abs", "a/../b", "a//b"} {
		if _, err := Prefixed(&Dir{}, bad); err == nil {
			t.Errorf("Prefixed(%q) accepted", bad)
		}
	}
}

// A folder of a store that does not read ranges does not claim to.
func TestPrefixedWithoutRanges(t *testing.T) {
	st, err := Prefixed(struct{ Store }{&Dir{root: t.TempDir()}}, "f")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(RangeReader); ok {
		t.Error("a folder of a store without GetRange claims to read ranges")
	}
}
