package search

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
)

// taxidLists are BLAST's file-valued taxid filters and the inline option
// each becomes.
var taxidLists = map[string]string{"taxidlist": "taxids", "negative_taxidlist": "negative_taxids"}

// TaxidList is a taxid list file kept as an object (s3://bucket/key, or a
// path on a shared filesystem): BLAST's -taxidlist, or -negative_taxidlist
// when Negative. Planning reads it into the plan's Options as -taxids (or
// -negative_taxids), so partitions never read the file and the filter's
// statistics are worked out from the ids; the plan keeps its location,
// which the operator compares with the campaign's.
type TaxidList struct {
	Location string `json:"location"`
	Negative bool   `json:"negative,omitempty"`
}

// Option is the BLAST option the file is given to: taxidlist or
// negative_taxidlist.
func (l TaxidList) Option() string {
	if l.Negative {
		return "negative_taxidlist"
	}
	return "taxidlist"
}

// inline is the option its ids go to in the plan.
func (l TaxidList) inline() string { return taxidLists[l.Option()] }

// Arg is the list as --blast-option takes it: -taxidlist=LOCATION.
func (l TaxidList) Arg() string { return "-" + l.Option() + "=" + l.Location }

// TaxidListRead: the list's ids are in s's options (s is planned).
func (s Spec) TaxidListRead() bool {
	return s.TaxidList != nil && slices.ContainsFunc(s.Options, func(o blast.Option) bool { return o.Name == s.TaxidList.inline() })
}

// ReadTaxidList reads the list's taxids from r (the object at
// l.Location) into s's options: what planning does with a campaign's
// list, once.
func (s *Spec) ReadTaxidList(r io.Reader) error {
	l := s.TaxidList
	if l == nil || s.TaxidListRead() {
		return nil
	}
	ids, err := readTaxids(r, l.Option(), l.Location)
	if err != nil {
		return err
	}
	s.Options = append(s.Options, blast.Option{Name: l.inline(), Value: ids})
	return nil
}

// TaxidListOption splits "-taxidlist=FILE" (or "-negative_taxidlist FILE"):
// ok only for a taxid list option.
func TaxidListOption(opt string) (name, path string, ok bool) {
	name, path, _ = blast.SplitOption(opt)
	_, isList := taxidLists[name]
	return name, path, strings.HasPrefix(opt, "-") && isList
}

// ExpandTaxidList turns "-taxidlist=FILE" (or "-negative_taxidlist FILE")
// into "-taxids=ID,ID,…" from the file, read here, where the search is
// given: partitions and workers do not have the submitting machine's files,
// and the plan then carries the taxids themselves. The file holds one
// taxid per line, as BLAST's -taxidlist reads it (blank lines and lines
// starting with # are skipped). Other options are returned as they are.
func ExpandTaxidList(opt string) (string, error) {
	name, path, ok := TaxidListOption(opt)
	if !ok {
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
	ids, err := readTaxids(f, name, path)
	if err != nil {
		return "", err
	}
	return "-" + taxidLists[name] + "=" + ids, nil
}

// CheckTaxidListFile reads a taxid list file as planning will, so a bad
// line is refused, naming it, before the file is uploaded.
func CheckTaxidListFile(name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--blast-option -%s: %w", name, err)
	}
	defer f.Close()
	_, err = readTaxids(f, name, path)
	return err
}

// readTaxids reads one taxid per line into "ID,ID,…", each once, in the
// file's order.
func readTaxids(r io.Reader, name, path string) (string, error) {
	var ids []string
	seen := map[int64]bool{}
	sc := bufio.NewScanner(r)
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
	return strings.Join(ids, ","), nil
}
