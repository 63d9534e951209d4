package blastdb

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/taxdb"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// Database is what a staged database holds.
type Database struct {
	Dir, Name string
	Type      manifest.DBType
	Version   int // BLAST database format: 4 or 5
	Sequences int64
	Letters   int64
	Volumes   []Volume
	// Common are the files every volume needs, whichever is searched: a
	// version 5 database's LMDB files (accession and taxid indexes).
	Common []string
	// TaxDB are taxdb.btd and taxdb.bti when the source had them.
	TaxDB []string
	// Masks are the masking algorithms applied to its sequences.
	Masks []MaskAlgorithm
	path  string // -db
	bin   string // blastdbcmd
	// statsSeqs and statsLetters are the alias file's STATS lines, if any.
	statsSeqs, statsLetters int64
}

// Volume is one volume, with its sequences' OIDs First..First+Sequences-1.
type Volume struct {
	Name      string
	Files     []string
	First     int64
	Sequences int64
	Letters   int64
}

// Seq is one sequence: the accessions of its deflines (BLAST prints the
// first, or under a taxid filter the first the filter keeps), its length
// and the taxids of all its deflines, sorted.
type Seq struct {
	IDs     []string
	Letters int64
	TaxIDs  []int32
}

// lmdbExts are a version 5 database's database-wide files.
var lmdbExts = map[string]bool{"ndb": true, "nos": true, "not": true, "ntf": true, "nto": true,
	"pdb": true, "pos": true, "pot": true, "ptf": true, "pto": true}

// filterKeys are alias file keys that restrict a database; such a
// database's statistics are not its volumes', so it is refused.
var filterKeys = []string{"OIDLIST", "GILIST", "TILIST", "SEQIDLIST", "TAXIDLIST", "MEMB_BIT", "FIRST_OID", "LAST_OID"}

var (
	countsRe = regexp.MustCompile(`([\d,]+) sequences; ([\d,]+) total (bases|residues)`)
	versRe   = regexp.MustCompile(`BLASTDB Version: (\d+)`)
)

// Describe asks blastdbcmd (from PATH, or bin) what the staged database
// holds, volume by volume, and checks it against the metadata file if
// there was one. Scan then streams its sequences.
func Describe(ctx context.Context, s *Staged, bin string) (*Database, error) {
	if bin == "" {
		bin = "blastdbcmd"
	}
	d := &Database{Dir: s.Dir, Name: s.Name, path: s.Path(), bin: bin}
	info, err := blastdbInfo(ctx, bin, s.Path())
	if err != nil {
		return nil, err
	}
	d.Type, d.Version, d.Sequences, d.Letters, d.Masks = info.typ, info.version, info.seqs, info.letters, info.masks
	if err := d.checkAlias(); err != nil {
		return nil, err
	}
	var first int64
	for _, vpath := range info.volumes {
		v := Volume{Name: filepath.Base(vpath), First: first}
		if filepath.Dir(vpath) != filepath.Clean(s.Dir) {
			return nil, fmt.Errorf("%s: volume %s lies outside the database's directory", s.Name, vpath)
		}
		vi, err := blastdbInfo(ctx, bin, vpath)
		if err != nil {
			return nil, err
		}
		v.Sequences, v.Letters = vi.seqs, vi.letters
		first += v.Sequences
		d.Volumes = append(d.Volumes, v)
	}
	if first != d.Sequences {
		return nil, fmt.Errorf("%s: volumes hold %d sequences, the database says %d", s.Name, first, d.Sequences)
	}
	if err := d.listFiles(); err != nil {
		return nil, err
	}
	if s.Metadata != nil {
		if err := s.Metadata.check(d); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// blastdbcmd runs in the database's directory with BLASTDB unset: BLAST
// resolves an alias file's DBLIST names in the working directory and on
// BLASTDB before the alias file's own directory, so files of the same
// names elsewhere would be read instead (seen: volumes of the same name in
// the caller's directory).
func blastdbcmd(ctx context.Context, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	for i, a := range args {
		if a == "-db" && i+1 < len(args) {
			cmd.Dir = filepath.Dir(args[i+1])
		}
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BLASTDB=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

type dbInfo struct {
	typ           manifest.DBType
	version       int
	seqs, letters int64
	volumes       []string
	masks         []MaskAlgorithm
}

func blastdbInfo(ctx context.Context, bin, db string) (*dbInfo, error) {
	cmd := blastdbcmd(ctx, bin, "-db", db, "-info")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -db %s -info: %w: %s", bin, db, err, strings.TrimSpace(stderr.String()))
	}
	m := countsRe.FindSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("%s -db %s -info: no sequence count in its output", bin, db)
	}
	in := &dbInfo{typ: manifest.Nucleotide}
	if string(m[3]) == "residues" {
		in.typ = manifest.Protein
	}
	in.seqs, _ = strconv.ParseInt(strings.ReplaceAll(string(m[1]), ",", ""), 10, 64)
	in.letters, _ = strconv.ParseInt(strings.ReplaceAll(string(m[2]), ",", ""), 10, 64)
	in.version = 4
	if v := versRe.FindSubmatch(out); v != nil {
		in.version, _ = strconv.Atoi(string(v[1]))
	}
	if in.masks, err = parseMaskAlgorithms(string(out)); err != nil {
		return nil, fmt.Errorf("%s -db %s -info: %w", bin, db, err)
	}
	_, vols, ok := bytes.Cut(out, []byte("Volumes:"))
	if !ok {
		return nil, fmt.Errorf("%s -db %s -info: no volume list in its output", bin, db)
	}
	for _, l := range strings.Split(string(vols), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			in.volumes = append(in.volumes, l)
		}
	}
	return in, nil
}

// checkAlias refuses a database whose alias file filters its volumes.
func (d *Database) checkAlias() error {
	alias := filepath.Join(d.Dir, d.Name+d.Type.AliasExt())
	data, err := os.ReadFile(alias)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(data), "\n") {
		key, val, _ := strings.Cut(strings.TrimSpace(l), " ")
		switch key {
		case "STATS_NSEQ":
			d.statsSeqs, _ = strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		case "STATS_TOTLEN":
			d.statsLetters, _ = strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		}
		if slices.Contains(filterKeys, key) {
			return fmt.Errorf("%s: %s restricts the database to part of its volumes; only whole databases (alias files of TITLE and DBLIST) can be sharded", alias, key)
		}
	}
	return nil
}

// listFiles assigns the directory's files to volumes and to the database.
func (d *Database) listFiles() error {
	ents, err := os.ReadDir(d.Dir)
	if err != nil {
		return err
	}
	vols := map[string]int{}
	for i, v := range d.Volumes {
		vols[v.Name] = i
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		if name == taxdb.IndexFile || name == taxdb.DataFile {
			d.TaxDB = append(d.TaxDB, name)
			continue
		}
		if isArchive(name) || strings.HasSuffix(name, ".md5") || strings.HasSuffix(name, "-metadata.json") {
			continue
		}
		stem, ext := name, ""
		if i := strings.LastIndex(name, "."); i > 0 {
			stem, ext = name[:i], name[i+1:]
		}
		switch {
		case stem == d.Name && lmdbExts[ext]:
			d.Common = append(d.Common, name)
		case stem == d.Name && (ext == "nal" || ext == "pal"):
			// the database's own alias: the shards have their own
		default:
			if i, ok := vols[stem]; ok {
				d.Volumes[i].Files = append(d.Volumes[i].Files, name)
			}
		}
	}
	for _, v := range d.Volumes {
		if len(v.Files) == 0 {
			return fmt.Errorf("volume %s: no files in %s", v.Name, d.Dir)
		}
	}
	if len(d.TaxDB) == 1 {
		return fmt.Errorf("%s: %s without its pair (taxdb.btd and taxdb.bti go together)", d.Dir, d.TaxDB[0])
	}
	return nil
}

// Scan streams every sequence to fn in OID order, read with blastdbcmd
// (one line per defline): memory holds one sequence at a time, whatever
// the database's size. It checks the count against the volumes' and that
// every sequence has an accession.
func (d *Database) Scan(ctx context.Context, fn func(oid int64, s Seq) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a failed fn stops blastdbcmd
	cmd := blastdbcmd(ctx, d.bin, "-db", d.path, "-entry", "all", "-outfmt", "%o\t%a\t%l\t%T")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running %s: %w", d.bin, err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	sq := &scan{next: 0, cur: -1, fn: fn}
	var perr error
	for perr == nil && sc.Scan() {
		perr = sq.line(sc.Text())
	}
	if perr == nil {
		perr = sc.Err()
	}
	if perr == nil {
		perr = sq.flush()
	}
	if perr != nil {
		cancel()
		cmd.Wait()
		return fmt.Errorf("%s -db %s -entry all: %w", d.bin, d.path, perr)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%s -db %s -entry all: %w: %s", d.bin, d.path, err, strings.TrimSpace(stderr.String()))
	}
	if sq.next != d.Sequences {
		return fmt.Errorf("%s -db %s -entry all listed %d sequences, the database holds %d", d.bin, d.path, sq.next, d.Sequences)
	}
	return nil
}

// scan gathers one sequence's deflines.
type scan struct {
	next int64 // OIDs handed to fn so far
	cur  int64 // OID being gathered, -1 before the first
	seq  Seq
	fn   func(int64, Seq) error
}

func (sq *scan) flush() error {
	if sq.cur < 0 {
		return nil
	}
	err := sq.fn(sq.cur, sq.seq)
	sq.next, sq.cur, sq.seq = sq.cur+1, -1, Seq{}
	return err
}

func (sq *scan) line(l string) error {
	f := strings.Split(l, "\t")
	if len(f) != 4 {
		return fmt.Errorf("line %q: want OID, accession, length, taxid", l)
	}
	oid, err1 := strconv.ParseInt(f[0], 10, 64)
	n, err2 := strconv.ParseInt(f[2], 10, 64)
	tax, err3 := strconv.ParseInt(f[3], 10, 32)
	if err1 != nil || err2 != nil || err3 != nil {
		return fmt.Errorf("line %q: want OID, accession, length, taxid", l)
	}
	if oid != sq.cur {
		if err := sq.flush(); err != nil {
			return err
		}
		if oid != sq.next {
			return fmt.Errorf("line %q: OID %d out of order (want %d)", l, oid, sq.next)
		}
		sq.cur, sq.seq = oid, Seq{Letters: n}
	}
	if f[1] == "" || strings.HasPrefix(f[1], "BL_ORD_ID") || strings.Contains(f[1], "No ID") {
		return fmt.Errorf("sequence %d has no accession (%q): build the database with makeblastdb -parse_seqids", oid, f[1])
	}
	s := &sq.seq
	if !slices.Contains(s.IDs, f[1]) {
		s.IDs = append(s.IDs, f[1])
	}
	if tax > 0 && !slices.Contains(s.TaxIDs, int32(tax)) {
		s.TaxIDs = append(s.TaxIDs, int32(tax))
		slices.Sort(s.TaxIDs)
	}
	return nil
}

// StatsLetters is the length BLAST counts for sequence oid when it scans
// a filtered database for its statistics (CSeqDBImpl::x_ScanTotals in
// approximate mode): a protein's exact length; for a nucleotide, the
// whole bytes of its packed sequence times four plus the volume-local
// OID's two low bits (CSeqDBVol::GetSeqLengthApprox), since packing
// stores len/4 whole bytes and one byte holding the rest.
func (d *Database) StatsLetters(oid, letters int64) int64 {
	if d.Type == manifest.Protein {
		return letters
	}
	v := d.VolumeOf(oid)
	return letters/4*4 + (oid-d.Volumes[v].First)&3
}

// VolumeOf is the index of the volume holding oid.
func (d *Database) VolumeOf(oid int64) int {
	i, _ := slices.BinarySearchFunc(d.Volumes, oid, func(v Volume, o int64) int {
		switch {
		case o < v.First:
			return 1
		case o >= v.First+v.Sequences:
			return -1
		}
		return 0
	})
	return i
}

// StatsTotals are the sequences and letters an unfiltered search counts:
// the STATS lines of the database's alias file if it has them, otherwise
// the volumes' totals.
func (d *Database) StatsTotals() (seqs, letters int64) {
	seqs, letters = d.Sequences, d.Letters
	if d.statsSeqs > 0 {
		seqs = d.statsSeqs
	}
	if d.statsLetters > 0 {
		letters = d.statsLetters
	}
	return seqs, letters
}
