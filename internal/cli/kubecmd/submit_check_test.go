package kubecmd

import (
	"context"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// testSubmitChecked: submit checks the search with the operator's own
// conversion (package fromapi). What the API server lets through but the
// operator would fail the campaign for is refused before the campaign
// exists; without a server (--dry-run=client) every error names the flag
// and the field; an option written as BLAST's command line writes it is
// split as BLAST reads it.
func testSubmitChecked(t *testing.T, f *kubeFixture) {
	base := []string{"submit", "--database", fxDB, "--queries", "s3://inputs/q.fa"}
	f.mustCLI(append(base, "--name", "checked1", "--program", "blastn", "--blast-option=-dust 20 64 1", "--blast-option", "-word_size 11")...)
	want := []v1alpha1.BlastOption{{Name: "dust", Value: "20 64 1"}, {Name: "word_size", Value: "11"}}
	if got := f.get("default", "checked1").Spec.BlastOptions; !reflect.DeepEqual(got, want) {
		t.Errorf("blast options %+v, want %+v", got, want)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--transfer", "metadata", "--blast-option=-taxids=9606"},
			"--transfer metadata with -taxids: regenerated output under a taxid filter is not supported yet"},
		{[]string{"--outfmt", "5", "--blast-option=-taxids=9606"}, "--outfmt 5 with -taxids"},
		{[]string{"--dry-run=client", "--blast-option=-word_size=abc"},
			`--blast-option -word_size=abc: spec.blastOptions[0]: -word_size takes a whole number (0 or more), not "abc"`},
		{[]string{"--dry-run=client", "--blast-option=-ungapped", "--blast-option=-out=/tmp/x"},
			"--blast-option -out=/tmp/x: spec.blastOptions[1]: -out is not allowed"},
		{[]string{"--dry-run=client", "--evalue", "tiny"}, `--evalue: spec.evalue "tiny" is not a number`},
	} {
		args := append(append(append([]string{}, base...), "--name", "checked2", "--program", "blastp"), tc.args...)
		if out, _, err := f.cli(args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v (stdout %q), want %q", tc.args, err, out, tc.want)
		}
	}
	var c v1alpha1.SearchCampaign
	if err := f.c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "checked2"}, &c); !apierrors.IsNotFound(err) {
		t.Errorf("a refused campaign exists: %v", err)
	}
}
