package kubetest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A CRD the API server refuses fails Start after etcd and kube-apiserver
// are up: they are stopped, not left running after the test (seen: a
// CRD whose CEL rule was over its cost budget left both behind).
func TestStartStopsServersOnRefusedCRD(t *testing.T) {
	assets, err := Assets()
	if err != nil {
		skipOrFatal(t, "%v", err)
	}
	dir := t.TempDir()
	bad := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  names: {kind: Thing, plural: things, singular: thing, listKind: ThingList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: "this is not CEL ((("
`
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if e, err := startCRDs(assets, []string{dir}); err == nil {
		e.Stop()
		t.Fatal("the API server took a CRD with a rule that does not compile")
	}
	if left := children("etcd", "kube-apiserver"); len(left) > 0 {
		t.Errorf("left running after the failed start: %v", left)
	}
}

// children lists this process's children named one of names.
func children(names ...string) []string {
	var out []string
	me := strconv.Itoa(os.Getpid())
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		comm, rest := s[open+1:close], strings.Fields(s[close+1:])
		if len(rest) < 2 || rest[1] != me {
			continue
		}
		for _, n := range names {
			if comm == n {
				out = append(out, comm+" "+strings.TrimSpace(s[:open]))
			}
		}
	}
	return out
}
