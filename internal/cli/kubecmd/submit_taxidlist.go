package kubecmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/blastfleet/blastfleet/internal/plan/search"
)

// listFlag is a --blast-option=-taxidlist=FILE (or -negative_taxidlist),
// or -seqidlist=FILE (or -negative_seqidlist): the file goes beside the
// queries as an object, which spec.taxidList (spec.seqidList) names, so a
// list of any length reaches the plan and the workers.
type listFlag struct {
	option, file string
	field        string // the spec field naming the object
	negative     bool
}

// splitTaxidLists takes the taxid and sequence id list options out of
// --blast-option: at most one of each kind, checked here before anything
// is uploaded (BLAST+ refuses the two kinds together, and so does the API).
func splitTaxidLists(opts []string) (rest []string, lists []*listFlag, err error) {
	seen := map[string]bool{}
	for _, o := range opts {
		l, err := listOption(o)
		if err != nil {
			return nil, nil, err
		}
		if l == nil {
			rest = append(rest, o)
			continue
		}
		if seen[l.field] {
			return nil, nil, fmt.Errorf("--blast-option %s: one %s only (BLAST takes one)", o, l.field)
		}
		seen[l.field] = true
		lists = append(lists, l)
	}
	return rest, lists, nil
}

// listOption reads one list option; nil for any other option.
func listOption(o string) (*listFlag, error) {
	kind, check := "taxids", search.CheckTaxidListFile
	name, file, ok := search.TaxidListOption(o)
	l := &listFlag{option: name, file: file, field: "taxidList", negative: name == "negative_taxidlist"}
	if !ok {
		if name, file, ok = search.SeqidListOption(o); !ok {
			return nil, nil
		}
		kind, check = "sequence ids", search.CheckSeqidListFile
		l = &listFlag{option: name, file: file, field: "seqidList", negative: name == "negative_seqidlist"}
	}
	if file == "" {
		return nil, fmt.Errorf("--blast-option %q: -%s needs a file of %s (-%s=FILE)", o, name, kind, name)
	}
	if !strings.Contains(file, "://") {
		if err := check(name, file); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// put sets the list's spec field: an s3://bucket/key as it is, a file here
// uploaded beside the queries (<prefix>/<namespace>/<name>/lists/<file>).
func (l *listFlag) put(ctx context.Context, obj *unstructured.Unstructured, dryRun bool, progress io.Writer) error {
	ref := map[string]any{}
	if rest, isS3 := strings.CutPrefix(l.file, "s3://"); isS3 {
		bucket, key, _ := strings.Cut(rest, "/")
		if bucket == "" || key == "" {
			return fmt.Errorf("--blast-option -%s=%s: want s3://bucket/key, or a file here", l.option, l.file)
		}
		ref["bucket"], ref["key"] = bucket, key
	} else {
		key, err := uploadBeside(ctx, obj, l.file, "lists", "--blast-option -"+l.option, dryRun, progress)
		if err != nil {
			return err
		}
		ref["key"] = key
	}
	if l.negative {
		ref["negative"] = true
	}
	return unstructured.SetNestedField(obj.Object, ref, "spec", l.field)
}
