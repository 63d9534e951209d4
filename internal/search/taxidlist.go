package search

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// taxidLists are BLAST's file-valued taxid filters and the inline option
// each becomes.
var taxidLists = map[string]string{"taxidlist": "taxids", "negative_taxidlist": "negative_taxids"}

// ExpandTaxidList turns "-taxidlist=FILE" (or "-negative_taxidlist FILE")
// into "-taxids=ID,ID,…" from the file, read here, where the search is
// given: partitions and workers do not have the submitting machine's files,
// and the plan then carries the taxids themselves. The file holds one
// taxid per line, as BLAST's -taxidlist reads it (blank lines and lines
// starting with # are skipped). Other options are returned as they are.
func ExpandTaxidList(opt string) (string, error) {
	body := strings.TrimLeft(opt, "-")
	name, path, ok := strings.Cut(body, "=")
	if !ok {
		name, path, _ = strings.Cut(body, " ")
	}
	name, path = strings.TrimSpace(name), strings.TrimSpace(path)
	inline, isList := taxidLists[name]
	if !strings.HasPrefix(opt, "-") || !isList {
		return opt, nil
	}
	if path == "" {
		return "", fmt.Errorf("--blast-option %q: -%s needs a file of taxids (-%s=FILE)", opt, name, name)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("--blast-option -%s: %w", name, err)
	}
	defer f.Close()
	var ids []string
	seen := map[int64]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		id, err := strconv.ParseInt(l, 10, 32)
		if err != nil || id <= 0 {
			return "", fmt.Errorf("--blast-option -%s: %s line %d: %q is not a taxid (a positive integer per line)", name, path, n, l)
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, strconv.FormatInt(id, 10))
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("--blast-option -%s: reading %s: %w", name, path, err)
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("--blast-option -%s: %s lists no taxid", name, path)
	}
	return "-" + inline + "=" + strings.Join(ids, ","), nil
}
