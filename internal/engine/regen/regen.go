// Package regen regenerates a query's BLAST report (ParaMEDIC, docs/concepts.md#regeneration-paramedic): the search has found the query's hits; the report in any
// BLAST format is BLAST's own, from searching the query again against
// just those subjects of the database's shards, in the unsharded
// database's order, under an alias that carries the whole database's title, size and
// statistics, and with the database's date. BLAST's E-values come from
// the alias's statistics (STATS_NSEQ, STATS_TOTLEN), the counts it prints
// from NSEQ and LENGTH, its title from TITLE and the "-db" it names from
// the alias's file name: the report reads as the whole database's.
package regen

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/blastvol"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// Database is the whole database a report names.
type Database struct {
	// Name is the -db a report names (XML, JSON, tabular comments): the
	// name the user knows it by; and its title unless Title is set.
	Name      string
	Title     string
	Type      manifest.DBType
	Sequences int64
	Letters   int64
	// Date is what BLAST prints as "Posted date" (makeblastdb's date of
	// its first shard); empty: the date of the first hit's shard volume.
	Date string
}

// DatabaseDate is the date a report gives the database: the newest of
// its shards' (BLAST prints the newest of an alias's volumes' dates);
// empty if a shard's is not on record (built before the manifest kept
// dates).
func DatabaseDate(shards []manifest.Shard) string {
	var newest time.Time
	var date string
	for _, s := range shards {
		t, err := time.Parse(blastvol.DateLayout, s.Date)
		if err != nil {
			return ""
		}
		if date == "" || t.After(newest) {
			newest, date = t, s.Date
		}
	}
	return date
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// CheckName says whether BLAST can be given name as a database: -db splits
// at spaces and reads paths.
func CheckName(name string) error {
	if !nameRe.MatchString(name) || len(name) > 200 {
		return fmt.Errorf("database name %q: a regenerated report names the database, and BLAST needs a name of letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// Subject is one hit subject: where it is and its place in the database.
type Subject struct {
	// DB is the shard's BLAST DB path (without extension): DIR/NAME, or
	// DIR/"V1 V2 ..." for a shard of volumes.
	DB string
	// IDs are its ids in that DB: every defline's of a merged entry.
	IDs     []string
	Ordinal int64 // in the unsharded database
}

// Search is what is regenerated: the user's search and format.
type Search struct {
	Program       blast.Program
	Format        *blast.Format
	MaxTargetSeqs int
	Evalue        float64
	Options       []blast.Option
	Threads       int
	// BatchLetters is B, the letters of the search's BLAST+ batches
	// (blast.BatchLetters; 0 or blast.Alone: each query alone).
	BatchLetters int
	Timeout      time.Duration
	MaxOutput    int64
	// TaxDBDir holds the taxonomy database (taxdb.btd/bti), for the
	// taxonomy names reports print; empty: none.
	TaxDBDir string
}

// Report searches the queries in query (FASTA: one query, or one BLAST+
// batch's, which s.BatchLetters keeps in one batch) against subjects and
// returns BLAST's report. dir is a scratch directory, made and removed
// here, beside or below the shards' directory: the alias it writes names
// the shards by relative paths.
//
// The subjects are not copied: the alias lists the shards that hold them,
// in the database's order, restricted to them by a SEQIDLIST, so their
// ids, titles, taxids and masks are the shards' own and BLAST numbers
// them in the database's order, which breaks its ties. A first volume
// that nothing aligns to, dated db.Date, gives the report the database's
// date (BLAST prints the newest of its volumes' dates) and is all a query
// without hits is searched against.
func Report(ctx context.Context, dir string, db Database, s Search, query []byte, subjects []Subject) ([]byte, error) {
	if err := CheckName(db.Name); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	dblist, err := volumes(dir, subjects)
	if err != nil {
		return nil, err
	}
	date := db.Date
	if date == "" && len(subjects) > 0 {
		// A database whose manifest does not record dates: the date
		// BLAST gives the first subject's shard.
		if _, date, err = blastvol.Info(ctx, "", subjects[0].DB); err != nil {
			return nil, fmt.Errorf("the database's date: %w", err)
		}
	}
	first, err := noHitsVolume(ctx, filepath.Dir(dir), db.Type, date)
	if err != nil {
		return nil, err
	}
	alias := fmt.Sprintf("TITLE %s\nDBLIST %s\n", cmp.Or(db.Title, db.Name), strings.Join(append([]string{first}, dblist...), " "))
	if len(subjects) > 0 {
		if err := seqidList(ctx, dir, subjects); err != nil {
			return nil, err
		}
		alias += "SEQIDLIST " + seqidListFile + "\n"
	}
	alias += fmt.Sprintf("NSEQ %d\nLENGTH %d\nSTATS_NSEQ %d\nSTATS_TOTLEN %d\n", db.Sequences, db.Letters, db.Sequences, db.Letters)
	if err := os.WriteFile(filepath.Join(dir, db.Name+db.Type.AliasExt()), []byte(alias), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "query.fa"), query, 0o644); err != nil {
		return nil, err
	}
	out, err := blast.Run(ctx, blast.Invocation{Program: s.Program, DB: db.Name, Query: "query.fa", Format: s.Format,
		MaxTargetSeqs: s.MaxTargetSeqs, Evalue: s.Evalue, Threads: s.Threads, Options: s.Options,
		BatchLetters: s.BatchLetters, Timeout: s.Timeout, MaxOutput: s.MaxOutput, Report: true, Dir: dir, TaxDBDir: s.TaxDBDir})
	if err != nil {
		return nil, fmt.Errorf("regenerating: %w", err)
	}
	return out, nil
}

const (
	noHitsDB      = "blastfleet-no-hits"
	seqidListFile = "blastfleet-hits.bsl"
)

func indexExt(t manifest.DBType) string {
	if t == manifest.Protein {
		return ".pin"
	}
	return ".nin"
}

// noHits is a database nothing aligns to: BLAST scores N and X below
// every match.
func noHits(t manifest.DBType) []byte {
	letter := "N"
	if t == manifest.Protein {
		letter = "X"
	}
	return []byte(">blastfleet_no_hits\n" + strings.Repeat(letter, 40) + "\n")
}

// volumes are the shards holding the subjects, as the alias in dir names
// them, in the database's order (of their first subjects).
func volumes(dir string, subjects []Subject) ([]string, error) {
	first := map[string]int64{}
	for _, s := range subjects {
		if o, ok := first[s.DB]; !ok || s.Ordinal < o {
			first[s.DB] = s.Ordinal
		}
	}
	dbs := make([]string, 0, len(first))
	for db := range first {
		dbs = append(dbs, db)
	}
	slices.SortFunc(dbs, func(a, b string) int { return cmp.Compare(first[a], first[b]) })
	var list []string
	for _, db := range dbs {
		// A shard of a prebuilt database is its volumes: "DIR/v1 v2".
		for _, vol := range strings.Fields(filepath.Base(db)) {
			rel, err := filepath.Rel(dir, filepath.Join(filepath.Dir(db), vol))
			if err != nil {
				return nil, fmt.Errorf("shard %s: %w", db, err)
			}
			if strings.ContainsAny(rel, " \t\n") {
				return nil, fmt.Errorf("shard %s: an alias file cannot name a path with spaces (%q)", db, rel)
			}
			list = append(list, rel)
		}
	}
	return list, nil
}

// seqidList writes the subjects' ids as the binary list an alias's
// SEQIDLIST reads. blastdb_aliastool resolves ids as the database stores
// them; a text list in the alias is matched as written, and misses an
// accession-shaped id whose case the database changed ("rnd00008" is
// stored as the accession RND00008).
func seqidList(ctx context.Context, dir string, subjects []Subject) error {
	var ids bytes.Buffer
	for _, s := range subjects {
		for _, id := range s.IDs {
			ids.WriteString(id + "\n")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "hits.txt"), ids.Bytes(), 0o644); err != nil {
		return err
	}
	_, err := command(ctx, dir, "blastdb_aliastool", "-seqid_file_in", "hits.txt", "-seqid_title", "hits",
		"-seqid_file_out", seqidListFile)
	return err
}

// noHitsVolume is the volume nothing aligns to, dated date, as the alias
// in a directory below parent names it: made once per parent, type and
// date, and kept (a few hundred bytes).
func noHitsVolume(ctx context.Context, parent string, t manifest.DBType, date string) (string, error) {
	sum := sha256.Sum256([]byte(string(t) + "\x00" + date))
	name := fmt.Sprintf("%s-%x", noHitsDB, sum[:6])
	rel := filepath.Join("..", name, noHitsDB)
	if _, err := os.Stat(filepath.Join(parent, name, noHitsDB+indexExt(t))); err == nil {
		return rel, nil
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-"+name+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := makeDB(ctx, tmp, t, noHits(t)); err != nil {
		return "", err
	}
	if date != "" {
		if err := blastvol.SetDate(filepath.Join(tmp, noHitsDB+indexExt(t)), date); err != nil {
			return "", fmt.Errorf("dating the report: %w", err)
		}
	}
	if err := os.Rename(tmp, filepath.Join(parent, name)); err != nil && !errors.Is(err, fs.ErrExist) {
		if _, serr := os.Stat(filepath.Join(parent, name, noHitsDB+indexExt(t))); serr != nil {
			return "", err
		}
	}
	return rel, nil
}

func makeDB(ctx context.Context, dir string, t manifest.DBType, fasta []byte) error {
	cmd := exec.CommandContext(ctx, "makeblastdb", "-in", "-", "-input_type", "fasta", "-dbtype", string(t),
		"-parse_seqids", "-out", noHitsDB, "-title", noHitsDB)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(fasta)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("makeblastdb: %w: %s", err, tail(out))
	}
	return nil
}

func command(ctx context.Context, dir string, argv ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, tail(stderr.Bytes()))
		}
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	return out, nil
}

func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 1024 {
		b = b[len(b)-1024:]
	}
	return strings.ReplaceAll(string(b), "\n", " | ")
}
