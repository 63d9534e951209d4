package shard

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blastdb"
	"github.com/blastfleet/blastfleet/internal/bio/blastvol"
	"github.com/blastfleet/blastfleet/internal/bio/seqidfilter"
	"github.com/blastfleet/blastfleet/internal/bio/taxfilter"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// BuildFromBlastDB shards a prebuilt BLAST database (opts.BlastDB) along
// its volumes: each shard is a run of consecutive volumes, copied as they
// are, with an alias file listing them under the whole database's
// statistics and an ids file giving each sequence's OID, which is its
// ordinal. Nothing goes through FASTA, so ids, titles, taxids and masks
// (every file of a volume is copied) stay as they were, and the OIDs, by
// which BLAST breaks ties, are the original ones. The database-wide files
// (a version 5 database's LMDB indexes, the taxonomy database) go to the
// manifest's common files, which every worker fetches with its shards, and
// a table of taxid sets lets the engine give filtered searches BLAST's
// statistics (package taxfilter).
//
// A database of fewer volumes than shards is first rebuilt in smaller
// volumes (revolume.go); otherwise its volumes are copied as they are:
// docs/benchmarks.md has the measurement that chose volumes over
// re-sharding with blastdbcmd and makeblastdb.
func BuildFromBlastDB(ctx context.Context, opts Options) (*manifest.Manifest, error) {
	j, err := newJob(opts)
	if err != nil {
		return nil, err
	}
	o := &j.o
	if o.BlastDB == "" {
		return nil, errors.New("shard options: no BLAST database given")
	}
	work, err := os.MkdirTemp(o.WorkDir, "blastfleet-blastdb-")
	if err != nil {
		return nil, fmt.Errorf("creating work directory: %w", err)
	}
	defer func() {
		if err := os.RemoveAll(work); err != nil {
			o.Log.Error(err, "removing work directory", "dir", work)
		}
	}()
	j.prog.printf("reading BLAST database %s", o.BlastDB)
	staged, err := blastdb.Stage(ctx, o.BlastDB, work, j.prog.printf)
	if err != nil {
		return nil, err
	}
	db, err := blastdb.Describe(ctx, staged, o.Blastdbcmd)
	if err != nil {
		return nil, err
	}
	if o.Type != "" && o.Type != db.Type {
		return nil, fmt.Errorf("--type %s, but %s is a %s database", o.Type, o.BlastDB, db.Type)
	}
	o.Type = db.Type
	j.prog.printf("%s: %d sequences, %d letters in %d volumes (BLAST database version %d)%s",
		db.Name, db.Sequences, db.Letters, len(db.Volumes), db.Version, taxNote(db))
	n, err := volumeShardCount(o, db)
	if err != nil {
		return nil, err
	}
	o.Shards = n
	files, src, err := hashSource(db)
	if err != nil {
		return nil, err
	}
	j.src = src
	old, done, err := existing(ctx, o, src)
	if err != nil {
		return nil, err
	}
	if done {
		j.prog.printf("%s already holds this database; nothing to do", o.Output.URL(manifest.FileName))
		return old, nil
	}
	id := buildID(src, o)
	if o.Force {
		id = forcedBuildID(id, time.Now())
	}
	if err := j.useBuild(id); err != nil {
		return nil, err
	}
	version, err := blastVersion(ctx, o.Makeblastdb)
	if err != nil {
		return nil, err
	}
	title, date, err := blastvol.Info(ctx, o.Blastdbcmd, staged.Path())
	if err != nil {
		return nil, err
	}
	// BLAST's filtered statistics count a nucleotide's letters by its
	// place in the original's volumes, whatever the shards are cut from.
	original := db
	if o.Shards > len(db.Volumes) {
		// The identity stays the original's (src); the files are the
		// rebuild's.
		if db, err = j.revolume(ctx, work, db, o.Shards, title, date); err != nil {
			return nil, err
		}
		if files, _, err = hashSource(db); err != nil {
			return nil, err
		}
	}
	letters := make([]int64, len(db.Volumes))
	for i, v := range db.Volumes {
		letters[i] = v.Letters
	}
	assign := balance(letters, o.Shards)
	if err := j.scanSeqs(ctx, work, db, original, assign); err != nil {
		return nil, err
	}
	shards, err := j.uploadVolumes(ctx, work, db, assign, files)
	if err != nil {
		return nil, err
	}
	common, stats, err := j.uploadCommon(ctx, work, db, files)
	if err != nil {
		return nil, err
	}
	m := &manifest.Manifest{
		SchemaVersion: manifest.SchemaVersion,
		Name:          o.Name,
		Title:         title,
		Type:          db.Type,
		BlastVersion:  version,
		Sequences:     db.Sequences,
		Letters:       db.Letters,
		Source:        manifest.Source{Name: filepath.Base(o.BlastDB), SHA256: src.sha256, Size: src.size},
		Shards:        shards,
		Ordered:       true,
		Build:         j.build,
		Common:        common,
		TaxStats:      stats.tax,
		SeqStats:      stats.seq,
	}
	// Every shard carries the database's date: BLAST prints the newest
	// of its volumes', which regenerated reports print (package regen).
	for i := range m.Shards {
		m.Shards[i].Date = date
	}
	if err := manifest.Save(ctx, o.Output, m); err != nil {
		return nil, err
	}
	j.retire(ctx, old)
	j.prog.printf("wrote %s (build %s)", o.Output.URL(manifest.FileName), j.build)
	return m, nil
}

func taxNote(db *blastdb.Database) string {
	if len(db.TaxDB) > 0 {
		return "; taxonomy database beside it"
	}
	return ""
}

// blastDBName is the name in DIR/NAME.
func blastDBName(src string) string {
	_, name, _ := blastdb.Location(src)
	return name
}

// volumeShardCount is Shards, or ceil(letters / TargetShardLetters) at
// least 1: a shard is a run of whole volumes, and a database of fewer
// volumes is rebuilt in smaller ones first (revolume.go). There cannot be
// more shards than sequences.
func volumeShardCount(o *Options, db *blastdb.Database) (int, error) {
	n := int64(o.Shards)
	if o.TargetShardLetters > 0 {
		n = max((db.Letters+o.TargetShardLetters-1)/o.TargetShardLetters, 1)
	}
	if n > db.Sequences {
		return 0, fmt.Errorf("%d shards for %d sequences: a shard holds at least one sequence", n, db.Sequences)
	}
	return int(n), nil
}

// hashSource hashes every file the shards will hold; the database's
// identity is the list of (name, size, SHA-256), so a re-run over the same
// files is a no-op and a changed volume makes a new build.
func hashSource(db *blastdb.Database) (map[string]manifest.File, *source, error) {
	var names []string
	for _, v := range db.Volumes {
		names = append(names, v.Files...)
	}
	names = append(append(names, db.Common...), db.TaxDB...)
	files := make(map[string]manifest.File, len(names))
	h := sha256.New()
	src := &source{letters: db.Letters}
	for _, name := range names {
		f, err := hashFile(filepath.Join(db.Dir, name))
		if err != nil {
			return nil, nil, err
		}
		files[name] = f
		fmt.Fprintf(h, "%s\x00%d\x00%s\n", f.Name, f.Size, f.SHA256)
		src.size += f.Size
	}
	src.sha256 = hex.EncodeToString(h.Sum(nil))
	return files, src, nil
}

func hashFile(path string) (manifest.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return manifest.File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return manifest.File{}, fmt.Errorf("hashing %s: %w", path, err)
	}
	return manifest.File{Name: filepath.Base(path), Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// scanSeqs streams the database's sequences once, before anything is
// uploaded, into each shard's ids file (every defline's accession with its
// OID: BLAST prints the first, or under a taxid filter the first the
// filter keeps), the taxid table (sequences and the letters BLAST's
// filtered statistics count on the original database, per shard and
// taxid set) and the sequence
// table (each sequence's shard, those letters and its ids, for sequence
// id lists: package seqidfilter), in work.
func (j *job) scanSeqs(ctx context.Context, work string, db, original *blastdb.Database, assign []int) error {
	dir := filepath.Join(work, "shards")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	files := make([]*os.File, j.o.Shards)
	writers := make([]*bufio.Writer, j.o.Shards)
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for k := range files {
		f, err := os.Create(filepath.Join(dir, namesFor(k, j.o.Shards, j.o.Name, j.o.Type).ids))
		if err != nil {
			return err
		}
		files[k], writers[k] = f, bufio.NewWriter(f)
	}
	groups := map[string]*taxfilter.Group{}
	seqs, err := os.Create(filepath.Join(work, seqidfilter.FileName))
	if err != nil {
		return err
	}
	defer seqs.Close()
	seqw := bufio.NewWriter(seqs)
	var line []byte
	j.prog.printf("reading the accessions, lengths and taxids of %d sequences", db.Sequences)
	err = db.Scan(ctx, func(oid int64, s blastdb.Seq) error {
		k := assign[db.VolumeOf(oid)]
		for _, id := range s.IDs {
			line = strconv.AppendInt(line[:0], oid, 10)
			line = append(append(append(line, '\t'), id...), '\n')
			if _, err := writers[k].Write(line); err != nil {
				return err
			}
		}
		letters := original.StatsLetters(oid, s.Letters)
		taxfilter.Add(groups, k, s.TaxIDs, letters)
		return seqidfilter.WriteSeq(seqw, k, letters, s.IDs)
	})
	if err != nil {
		return err
	}
	for k, w := range writers {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("writing ids file: %w", err)
		}
		if err := files[k].Close(); err != nil {
			return fmt.Errorf("writing ids file: %w", err)
		}
		files[k] = nil
	}
	if err := seqw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", seqidfilter.FileName, err)
	}
	if err := seqs.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", seqidfilter.FileName, err)
	}
	f, err := os.Create(filepath.Join(work, taxfilter.FileName))
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := taxfilter.Sorted(groups).WriteTo(f); err != nil {
		return fmt.Errorf("writing %s: %w", taxfilter.FileName, err)
	}
	return f.Close()
}

// uploadVolumes uploads each shard (assign gives each volume's):
// its volumes' files, its alias and its ids file.
func (j *job) uploadVolumes(ctx context.Context, work string, db *blastdb.Database, assign []int, files map[string]manifest.File) ([]manifest.Shard, error) {
	o := &j.o
	groups := make([][]blastdb.Volume, o.Shards)
	for i, s := range assign {
		groups[s] = append(groups[s], db.Volumes[i])
	}
	stats := filepath.Join(work, "shards")
	nseq, totlen := db.StatsTotals()
	shards := make([]manifest.Shard, o.Shards)
	var uploaded atomic.Int64
	err := parallel(ctx, o.Shards, o.Jobs, func(ctx context.Context, k int) error {
		n := namesFor(k, o.Shards, o.Name, o.Type)
		vols := groups[k]
		sh := manifest.Shard{ID: k, Name: n.name, IDsFile: n.ids}
		var dbNames []string
		for _, v := range vols {
			dbNames = append(dbNames, v.Name)
			sh.Sequences += v.Sequences
			sh.Letters += v.Letters
		}
		sh.DBName = strings.Join(dbNames, " ")
		alias := fmt.Appendf(nil, "TITLE %s\nDBLIST %s\nSTATS_NSEQ %d\nSTATS_TOTLEN %d\n", n.title, sh.DBName, nseq, totlen)
		if err := os.WriteFile(filepath.Join(stats, n.alias), alias, 0o644); err != nil {
			return err
		}
		for _, name := range []string{n.alias, n.ids} {
			f, err := uploadFile(ctx, j.out, filepath.Join(stats, name))
			if err != nil {
				return err
			}
			sh.Files = append(sh.Files, f)
		}
		for _, v := range vols {
			for _, name := range v.Files {
				f, err := uploadFile(ctx, j.out, filepath.Join(db.Dir, name))
				if err != nil {
					return err
				}
				if f != files[name] {
					return fmt.Errorf("%s changed while sharding (SHA-256 %s, was %s)", name, f.SHA256, files[name].SHA256)
				}
				sh.Files = append(sh.Files, f)
			}
		}
		sortFiles(sh.Files)
		shards[k] = sh
		j.prog.shardStep(o.Shards, "uploaded shard %d/%d: %s, volumes %s, %d sequences, %s",
			uploaded.Add(1), o.Shards, n.name, sh.DBName, sh.Sequences, byteSize(sh.Bytes()))
		return nil
	})
	return shards, err
}

// filterTables name the common files that serve filtered searches.
type filterTables struct{ tax, seq string }

// uploadCommon uploads the database-wide files, the taxid table and the
// sequence table.
func (j *job) uploadCommon(ctx context.Context, work string, db *blastdb.Database, files map[string]manifest.File) ([]manifest.File, filterTables, error) {
	var common []manifest.File
	for _, name := range append(append([]string{}, db.Common...), db.TaxDB...) {
		f, err := uploadFile(ctx, j.out, filepath.Join(db.Dir, name))
		if err != nil {
			return nil, filterTables{}, err
		}
		if f != files[name] {
			return nil, filterTables{}, fmt.Errorf("%s changed while sharding", name)
		}
		common = append(common, f)
	}
	if db.Version < 5 {
		// BLAST filters by taxid through a version 5 database's index
		// only; sequence id lists were measured on version 5 only.
		sortFiles(common)
		return common, filterTables{}, nil
	}
	for _, name := range []string{taxfilter.FileName, seqidfilter.FileName} {
		f, err := uploadFile(ctx, j.out, filepath.Join(work, name))
		if err != nil {
			return nil, filterTables{}, err
		}
		common = append(common, f)
	}
	sortFiles(common)
	return common, filterTables{tax: taxfilter.FileName, seq: seqidfilter.FileName}, nil
}
