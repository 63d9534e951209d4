package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// target is where campaigns run: the local stack or a real cluster.
type target struct {
	kubeconfig string
	ns         string
	// endpoint, bucket and secret go into the objects' spec.storage and
	// spec.output: as the cluster's pods reach the object store.
	endpoint, bucket, secret string
	// store opens the bucket under a prefix, as this test reaches it.
	store func(prefix string) (objstore.Store, error)
	c     client.Client
	cli   string // the blastfleet binary
	// suffix makes names unique on a shared cluster ("" locally).
	suffix string
	// stack is the local stack; nil on a real cluster.
	stack *stack
	// node is the one-node cluster of dev up --cluster, when that is
	// the target.
	node *stack
}

// newTarget starts the local stack, or connects to E2E_KUBECONFIG's
// cluster.
func newTarget(t *testing.T, f *fixture) *target {
	t.Helper()
	var tg *target
	if kc := os.Getenv("E2E_KUBECONFIG"); kc != "" {
		tg = clusterTarget(t, kc)
	} else {
		tg = localTarget(t, f)
	}
	tg.c = testkit.Client(t, tg.kubeconfig)
	return tg
}

// name is a per-run object name.
func (tg *target) name(base string) string { return base + tg.suffix }

func randomSuffix(t *testing.T) string {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "-" + hex.EncodeToString(b)
}

// put uploads an object to the bucket.
func (tg *target) put(t *testing.T, key string, data []byte) {
	t.Helper()
	st, err := tg.store("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("uploading %s: %v", key, err)
	}
}

// run runs a program (kubectl, the CLI) with the target's kubeconfig and
// returns its stdout, stderr and error.
func (tg *target) run(t *testing.T, prog string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+tg.kubeconfig)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// kubectl runs kubectl in the target's namespace and fails the test on
// an error.
func (tg *target) kubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := tg.run(t, "kubectl", append([]string{"-n", tg.ns}, args...)...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// apply writes manifest to a file and applies it with kubectl, as a
// user would.
func (tg *target) apply(t *testing.T, manifest string) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(manifest); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return tg.kubectl(t, "apply", "-f", f.Name())
}
