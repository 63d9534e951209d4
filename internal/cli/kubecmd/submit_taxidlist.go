package kubecmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/blastfleet/blastfleet/internal/search"
)

// taxidListFlag is a --blast-option=-taxidlist=FILE (or
// -negative_taxidlist): the file goes beside the queries as an object,
// which spec.taxidList names, so a list of any length reaches the plan.
type taxidListFlag struct {
	option, file string
}

// splitTaxidLists takes the taxid list options out of --blast-option:
// at most one, checked here line by line before anything is uploaded.
func splitTaxidLists(opts []string) (rest []string, list *taxidListFlag, err error) {
	for _, o := range opts {
		name, file, ok := search.TaxidListOption(o)
		if !ok {
			rest = append(rest, o)
			continue
		}
		if list != nil {
			return nil, nil, fmt.Errorf("--blast-option %s: one taxid list only (BLAST takes one taxid filter)", o)
		}
		if file == "" {
			return nil, nil, fmt.Errorf("--blast-option %q: -%s needs a file of taxids (-%s=FILE)", o, name, name)
		}
		if !strings.Contains(file, "://") {
			if err := search.CheckTaxidListFile(name, file); err != nil {
				return nil, nil, err
			}
		}
		list = &taxidListFlag{option: name, file: file}
	}
	return rest, list, nil
}

// put sets spec.taxidList: an s3://bucket/key as it is, a file here
// uploaded beside the queries (<prefix>/<namespace>/<name>/lists/<file>).
func (l *taxidListFlag) put(ctx context.Context, obj *unstructured.Unstructured, dryRun bool, progress io.Writer) error {
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
	if l.option == "negative_taxidlist" {
		ref["negative"] = true
	}
	return unstructured.SetNestedField(obj.Object, ref, "spec", "taxidList")
}
