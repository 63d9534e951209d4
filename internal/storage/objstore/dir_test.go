package objstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDir(t *testing.T) {
	root := filepath.Join(t.TempDir(), "store")
	st, err := NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	testStore(t, st, func() Store {
		d, err := NewDir(root)
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

func TestDirHidesInternals(t *testing.T) {
	ctx := context.Background()
	st, err := NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	put(t, st, "a", []byte("a"))
	// A crashed Put and a pending upload must not show as objects.
	if err := os.WriteFile(filepath.Join(st.Root(), tmpPrefix+"123"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	up, err := st.NewUpload(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := up.PutPart(ctx, 1, []byte("x")); err != nil {
		t.Fatal(err)
	}
	infos, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Key != "a" {
		t.Errorf("List = %+v, want only a", infos)
	}
	for _, k := range []string{".uploads/x", "d/" + tmpPrefix + "1"} {
		if err := st.Put(ctx, k, strings.NewReader("x"), 1); err == nil {
			t.Errorf("Put(%q) into a reserved name succeeded", k)
		}
	}
	if _, err := st.ResumeUpload(ctx, "other", up.ID()); err == nil {
		t.Error("ResumeUpload with another key's upload ID succeeded")
	}
	if got := st.URL("x/y"); got != filepath.Join(st.Root(), "x", "y") {
		t.Errorf("URL = %s", got)
	}
}
