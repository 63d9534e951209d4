package shard

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/go-logr/logr"

	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Options says what to build and where.
type Options struct {
	Input string // FASTA, plain or gzip: a local path or s3://bucket/key
	// BlastDB is a prebuilt BLAST database to shard instead of a FASTA:
	// DIR/NAME or s3://bucket/prefix/NAME (see BuildFromBlastDB). Type may
	// then be left empty: the database says.
	BlastDB string
	Type    manifest.DBType // nucl or prot
	Shards  int             // number of shards; exactly one of Shards and TargetShardLetters is set
	// TargetShardLetters sets the shard count from the input instead:
	// ceil(letters / TargetShardLetters), at least 1 and at most the
	// sequence count. Only Build takes it: BuildShard and Finish run as
	// separate processes that must agree on the count before reading.
	TargetShardLetters int64
	Output             objstore.Store // where shard files and manifest.json go
	Name               string         // database name; default: Input's base name without .fa/.fasta/.gz
	// Force rebuilds even when the output already holds a database: one
	// from another input (otherwise refused) or this very one (otherwise a
	// no-op). For BuildShard it also rebuilds a shard already built.
	Force    bool
	WorkDir  string    // parent of the temporary build directory; default os.TempDir()
	Progress io.Writer // human progress lines; nil keeps quiet
	// OnShard, if set, hears each shard's steps (built, uploaded), done
	// of total in all, instead of a Progress line for each: the CLI's one
	// bar on a terminal.
	OnShard func(step string, done, total int)
	Log     logr.Logger
	// Makeblastdb is the program to run; default "makeblastdb" from PATH.
	Makeblastdb string
	// Blastdbcmd reads a prebuilt database (BlastDB); default
	// "blastdbcmd" from PATH.
	Blastdbcmd string
	// Jobs bounds concurrent makeblastdb runs; default runtime.NumCPU().
	Jobs int
	// SourceSHA256, when set, is the input's SHA-256 as an earlier
	// Verify saw it: a run reading other bytes (the source replaced
	// while a pipeline ran) fails before writing anything.
	SourceSHA256 string
}

func (o *Options) setDefaults() {
	if o.Name == "" && o.BlastDB != "" {
		o.Name = blastDBName(o.BlastDB)
	}
	if o.Name == "" {
		o.Name = DefaultName(o.Input)
	}
	if o.Makeblastdb == "" {
		o.Makeblastdb = "makeblastdb"
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	if o.Log.GetSink() == nil {
		o.Log = logr.Discard()
	}
}

func (o *Options) validate() error {
	var errs []error
	switch {
	case o.Input != "" && o.BlastDB != "":
		errs = append(errs, errors.New("an input FASTA and a BLAST database given: give one"))
	case o.Input == "" && o.BlastDB == "":
		errs = append(errs, errors.New("no input FASTA given"))
	}
	if o.Type != manifest.Nucleotide && o.Type != manifest.Protein && (o.BlastDB == "" || o.Type != "") {
		errs = append(errs, fmt.Errorf("database type %q: must be %s or %s", o.Type, manifest.Nucleotide, manifest.Protein))
	}
	switch {
	case o.Shards != 0 && o.TargetShardLetters != 0:
		errs = append(errs, fmt.Errorf("shard count %d and target of %d letters per shard: set one, not both", o.Shards, o.TargetShardLetters))
	case o.TargetShardLetters < 0:
		errs = append(errs, fmt.Errorf("target of %d letters per shard: must be at least 1", o.TargetShardLetters))
	case o.TargetShardLetters == 0 && o.Shards < 1:
		errs = append(errs, fmt.Errorf("shard count %d: must be at least 1 (or set a target of letters per shard)", o.Shards))
	}
	if o.Output == nil {
		errs = append(errs, errors.New("no output store given"))
	}
	// The name goes into alias files, which are line-based.
	if strings.ContainsFunc(o.Name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		errs = append(errs, fmt.Errorf("database name %q: must not hold control characters", o.Name))
	}
	if strings.TrimSpace(o.Name) == "" {
		errs = append(errs, errors.New("database name is empty"))
	}
	return errors.Join(errs...)
}

// DefaultName is the database name derived from an input path:
// "/data/nt.fasta.gz" gives "nt".
func DefaultName(input string) string {
	name := filepath.Base(input)
	name = trimSuffixFold(name, ".gz")
	for _, ext := range []string{".fasta", ".fa", ".fna", ".faa", ".fas"} {
		if n := trimSuffixFold(name, ext); n != name {
			return n
		}
	}
	return name
}

func trimSuffixFold(s, suffix string) string {
	if len(s) > len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return s[:len(s)-len(suffix)]
	}
	return s
}

func alphabetFor(t manifest.DBType) fasta.Alphabet {
	if t == manifest.Protein {
		return fasta.Protein
	}
	return fasta.Nucleotide
}
