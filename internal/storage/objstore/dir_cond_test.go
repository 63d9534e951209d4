package objstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirETagChangesOnRewrite: rewriting the same bytes at once must still
// change the ETag, or a compare-and-swap could not see the write.
func TestDirETagChangesOnRewrite(t *testing.T) {
	ctx := context.Background()
	st, err := NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	etag, err := st.PutIfAbsent(ctx, "k", []byte("same"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{etag: true}
	for range 50 {
		if etag, err = st.PutIfMatch(ctx, "k", []byte("same"), etag); err != nil {
			t.Fatal(err)
		}
		if seen[etag] {
			t.Fatalf("ETag %s repeated", etag)
		}
		seen[etag] = true
	}
	put(t, st, "k", []byte("same"))
	if info, _ := st.Stat(ctx, "k"); seen[info.ETag] {
		t.Errorf("plain Put kept ETag %s", info.ETag)
	}
}

// TestDirConditionalAcrossProcesses races PutIfAbsent from child processes
// (this test binary re-run), which share nothing but the directory.
func TestDirConditionalAcrossProcesses(t *testing.T) {
	if root := os.Getenv("OBJSTORE_TEST_CHILD_ROOT"); root != "" {
		st, err := NewDir(root)
		if err != nil {
			fmt.Println("error", err)
			return
		}
		_, err = st.PutIfAbsent(context.Background(), "proc/obj", []byte(os.Getenv("OBJSTORE_TEST_CHILD_ID")))
		switch {
		case err == nil:
			fmt.Println("RESULT won")
		case errors.Is(err, ErrPrecondition):
			fmt.Println("RESULT lost")
		default:
			fmt.Println("RESULT error", err)
		}
		return
	}
	root := filepath.Join(t.TempDir(), "store")
	const n = 6
	cmds := make([]*exec.Cmd, n)
	outs := make([]strings.Builder, n)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestDirConditionalAcrossProcesses$")
		cmds[i].Env = append(os.Environ(), "OBJSTORE_TEST_CHILD_ROOT="+root, fmt.Sprintf("OBJSTORE_TEST_CHILD_ID=%d", i))
		cmds[i].Stdout = &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	won := 0
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i].String())
		}
		switch out := outs[i].String(); {
		case strings.Contains(out, "RESULT won"):
			won++
		case !strings.Contains(out, "RESULT lost"):
			t.Errorf("child %d: %s", i, out)
		}
	}
	if won != 1 {
		t.Errorf("%d processes won PutIfAbsent, want 1", won)
	}
}
