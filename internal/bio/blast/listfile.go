package blast

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxInlineList is the longest taxid list passed on the command line:
// Linux refuses an argument over 128 KiB (MAX_ARG_STRLEN) with E2BIG, and
// a plan's list may be of any length. Longer lists go to BLAST as the
// file its -taxidlist (or -negative_taxidlist) reads, one taxid a line:
// the same filter.
const maxInlineList = 32 << 10

// listFileOptions are the inline options that have a file form.
var listFileOptions = map[string]string{"taxids": "taxidlist", "negative_taxids": "negative_taxidlist"}

// withListFiles is opts with each taxid list longer than maxInlineList
// written to a file in dir and named by its file option instead.
func withListFiles(opts []Option, dir string) ([]Option, error) {
	var out []Option
	for _, o := range opts {
		file, ok := listFileOptions[o.Name]
		if !ok || len(o.Value) <= maxInlineList {
			out = append(out, o)
			continue
		}
		path := filepath.Join(dir, o.Name+".txt")
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(o.Value, ",", "\n")+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("writing the -%s list for BLAST: %w", file, err)
		}
		out = append(out, Option{Name: file, Value: path})
	}
	return out, nil
}

// needsListFiles: some option of opts goes to BLAST as a file.
func needsListFiles(opts []Option) bool {
	for _, o := range opts {
		if _, ok := listFileOptions[o.Name]; ok && len(o.Value) > maxInlineList {
			return true
		}
	}
	return false
}
