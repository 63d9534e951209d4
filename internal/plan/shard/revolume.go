package shard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blastdb"
	"github.com/blastfleet/blastfleet/internal/bio/blastvol"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// A prebuilt database is sharded along its volumes, and makeblastdb's
// default volume is 3 GB, so a lab's own database is often one volume.
// When it has fewer volumes than the shards asked, it is rebuilt first
// into smaller volumes: every sequence in its OID order (BLAST breaks ties
// by OID), with its deflines (ids and titles, merged deflines kept), its
// taxids and its masks (each algorithm under the same ID), the same title,
// and the original's date in every volume's header.

// revolumesPerShard is how many volumes the rebuild aims at per shard, so
// runs of whole volumes balance the shards' letters.
const revolumesPerShard = 4

// fieldSep separates blastdbcmd's fields: titles may hold tabs and bars.
const fieldSep = "\x1f"

// revolume rebuilds db into at least shards volumes in work and describes
// the result.
func (j *job) revolume(ctx context.Context, work string, db *blastdb.Database, shards int, title, date string) (*blastdb.Database, error) {
	dir := filepath.Join(work, "revolumed")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	masks := db.Masks
	j.prog.printf("%s has %d volumes for %d shards: rebuilding it in smaller volumes (ids, titles, taxids, %d masking algorithms and the sequence order kept)",
		db.Name, len(db.Volumes), shards, len(masks))
	fasta, taxmap := filepath.Join(dir, "db.fa"), filepath.Join(dir, "taxids.txt")
	src, err := writeFASTA(ctx, db, fasta, taxmap, 0)
	if err != nil {
		return nil, err
	}
	defer os.Remove(fasta)
	args := []string{"-in", fasta, "-dbtype", string(db.Type), "-title", title, "-blastdb_version", strconv.Itoa(db.Version)}
	switch {
	case src.parsed:
		args = append(args, "-parse_seqids")
		if src.taxids {
			args = append(args, "-taxid_map", taxmap)
		}
	case src.taxid != 0:
		args = append(args, "-taxid", strconv.FormatInt(src.taxid, 10))
	}
	var maskFiles []string
	for _, a := range masks {
		f, err := j.maskData(ctx, db, dir, a, src.parsed)
		if err != nil {
			return nil, err
		}
		maskFiles = append(maskFiles, f)
	}
	if len(maskFiles) > 0 {
		args = append(args, "-mask_data", strings.Join(maskFiles, ","))
	}
	size := max(biggestFile(db)/int64(revolumesPerShard*shards), 1024)
	for try := 0; ; try++ {
		out := filepath.Join(dir, fmt.Sprintf("try%d", try))
		if err := os.Mkdir(out, 0o755); err != nil {
			return nil, err
		}
		nd, err := j.makeVolumes(ctx, db, out, append(args, "-max_file_sz", strconv.FormatInt(size, 10)))
		if err != nil {
			return nil, err
		}
		if len(nd.Volumes) >= shards {
			return nd, j.checkRevolumed(ctx, db, nd, masks, date)
		}
		if try == 5 || size == 1024 {
			return nil, fmt.Errorf("rebuilding %s: %d volumes at -max_file_sz %d, fewer than %d shards (fewer sequences than shards?)", db.Name, len(nd.Volumes), size, shards)
		}
		size = max(size/4, 1024)
	}
}

// makeVolumes runs makeblastdb into dir under the database's name and
// describes what it wrote, with the taxonomy database copied beside it.
func (j *job) makeVolumes(ctx context.Context, db *blastdb.Database, dir string, args []string) (*blastdb.Database, error) {
	cmd := exec.CommandContext(ctx, j.o.Makeblastdb, append(args, "-out", filepath.Join(dir, db.Name))...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("makeblastdb rebuilding %s in smaller volumes: %w: %s", db.Name, err, tail(out.Bytes()))
	}
	for _, name := range db.TaxDB {
		if err := blastdb.CopyFile(filepath.Join(db.Dir, name), filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("copying %s beside the rebuild: %w", name, err)
		}
	}
	return blastdb.Describe(ctx, &blastdb.Staged{Dir: dir, Name: db.Name}, j.o.Blastdbcmd)
}

// checkRevolumed checks the rebuild holds what the original did and gives
// its volumes the original's date (BLAST prints it as "Posted date").
func (j *job) checkRevolumed(ctx context.Context, db, nd *blastdb.Database, masks []blastdb.MaskAlgorithm, date string) error {
	if nd.Sequences != db.Sequences || nd.Letters != db.Letters || nd.Type != db.Type || nd.Version != db.Version {
		return fmt.Errorf("rebuilding %s: %d sequences, %d letters (%s, version %d), the original %d, %d (%s, version %d)",
			db.Name, nd.Sequences, nd.Letters, nd.Type, nd.Version, db.Sequences, db.Letters, db.Type, db.Version)
	}
	if fmt.Sprint(nd.Masks) != fmt.Sprint(masks) {
		return fmt.Errorf("rebuilding %s: masking algorithms %v, the original %v", db.Name, nd.Masks, masks)
	}
	ext := ".nin"
	if db.Type == manifest.Protein {
		ext = ".pin"
	}
	for _, v := range nd.Volumes {
		if err := blastvol.SetDate(filepath.Join(nd.Dir, v.Name+ext), date); err != nil {
			return fmt.Errorf("rebuilding %s: %w", db.Name, err)
		}
	}
	return nil
}

// maskData writes one masking algorithm's masks as makeblastdb's
// -mask_data: the sequences with that algorithm's masks in lower case,
// read back by convert2blastmask.
func (j *job) maskData(ctx context.Context, db *blastdb.Database, dir string, a blastdb.MaskAlgorithm, parsed bool) (string, error) {
	fa := filepath.Join(dir, fmt.Sprintf("masked-%d.fa", a.ID))
	if _, err := writeFASTA(ctx, db, fa, "", a.ID); err != nil {
		return "", err
	}
	defer os.Remove(fa)
	out := filepath.Join(dir, fmt.Sprintf("masks-%d.asnb", a.ID))
	args := []string{"-in", fa, "-masking_algorithm", a.Name, "-masking_options", a.Options, "-outfmt", "maskinfo_asn1_bin", "-out", out}
	if parsed {
		args = append(args, "-parse_seqids")
	}
	cmd := exec.CommandContext(ctx, convert2blastmask(j.o.Makeblastdb), args...)
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("convert2blastmask for %s's %s masks (algorithm %d): %w: %s", db.Name, a.Name, a.ID, err, tail(msg.Bytes()))
	}
	return out, nil
}

// convert2blastmask is the one beside makeblastdb, or on PATH.
func convert2blastmask(makeblastdb string) string {
	if dir := filepath.Dir(makeblastdb); dir != "." {
		if p := filepath.Join(dir, "convert2blastmask"); fileExists(p) {
			return p
		}
	}
	return "convert2blastmask"
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// fastaSource is what writeFASTA learnt of the database: whether its
// seqids are parsed, and whether any has a taxid (parsed) or the one
// taxid of all (not parsed).
type fastaSource struct {
	parsed bool
	taxids bool
	taxid  int64
}

// writeFASTA writes every sequence of db in OID order with its deflines
// (merged ones joined by Ctrl-A, as makeblastdb reads them) to fasta, and
// with taxmap set each seqid's taxid to it. mask > 0 writes that
// algorithm's masked letters in lower case.
func writeFASTA(ctx context.Context, db *blastdb.Database, fasta, taxmap string, mask int) (*fastaSource, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	seqArgs := []string{"-entry", "all", "-outfmt", "%o" + fieldSep + "%s"}
	if mask > 0 {
		seqArgs = append(seqArgs, "-mask_sequence_with", strconv.Itoa(mask))
	}
	seqs, waitSeqs, err := stream(db.Command(ctx, seqArgs...))
	if err != nil {
		return nil, err
	}
	defls, waitDefls, err := stream(db.Command(ctx, "-entry", "all", "-outfmt", strings.Join([]string{"%o", "%i", "%T", "%t"}, fieldSep)))
	if err != nil {
		return nil, err
	}
	f, err := os.Create(fasta)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var tw *bufio.Writer
	if taxmap != "" {
		tf, err := os.Create(taxmap)
		if err != nil {
			return nil, err
		}
		defer tf.Close()
		tw = bufio.NewWriter(tf)
		defer tw.Flush()
	}
	src := &fastaSource{parsed: true, taxid: -1}
	var pending []string // a defline read ahead: it starts the next OID
	for oid := int64(0); ; oid++ {
		line, err := seqs.ReadString('\n')
		if err == io.EOF && line == "" {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading %s's sequences: %w", db.Name, err)
		}
		o, seq, ok := strings.Cut(strings.TrimRight(line, "\n"), fieldSep)
		if !ok || o != strconv.FormatInt(oid, 10) {
			return nil, fmt.Errorf("reading %s's sequences: line %q out of OID order (want %d)", db.Name, clip(line), oid)
		}
		var heads []string
		for {
			if pending == nil {
				l, err := defls.ReadString('\n')
				if err == io.EOF && l == "" {
					break
				}
				if err != nil && err != io.EOF {
					return nil, fmt.Errorf("reading %s's deflines: %w", db.Name, err)
				}
				pending = strings.SplitN(strings.TrimRight(l, "\n"), fieldSep, 4)
				if len(pending) != 4 {
					return nil, fmt.Errorf("reading %s's deflines: line %q has no id, taxid and title", db.Name, clip(l))
				}
			}
			if pending[0] != o {
				break
			}
			head, err := src.defline(pending[1], pending[2], pending[3], tw)
			if err != nil {
				return nil, fmt.Errorf("%s, OID %d: %w", db.Name, oid, err)
			}
			heads, pending = append(heads, head), nil
		}
		if len(heads) == 0 {
			return nil, fmt.Errorf("reading %s: OID %d has no defline", db.Name, oid)
		}
		fmt.Fprintf(w, ">%s\n%s\n", strings.Join(heads, "\x01"), seq)
	}
	if pending != nil {
		return nil, fmt.Errorf("reading %s: a defline of OID %s, past the last sequence", db.Name, pending[0])
	}
	if err := errors.Join(waitSeqs(), waitDefls()); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("writing %s: %w", fasta, err)
	}
	if src.taxid < 0 {
		src.taxid = 0
	}
	return src, f.Close()
}

// biggestFile is the bytes of db's largest sequence or header file, the
// files makeblastdb's -max_file_sz bounds.
func biggestFile(db *blastdb.Database) int64 {
	var biggest int64
	for _, v := range db.Volumes {
		for _, name := range v.Files {
			if ext := filepath.Ext(name); ext == ".nsq" || ext == ".psq" || ext == ".nhr" || ext == ".phr" {
				if st, err := os.Stat(filepath.Join(db.Dir, name)); err == nil {
					biggest = max(biggest, st.Size())
				}
			}
		}
	}
	return biggest
}

// defline is one defline of the rebuilt FASTA from blastdbcmd's id,
// taxid and title, its taxid written to tw.
func (s *fastaSource) defline(id, taxid, title string, tw *bufio.Writer) (string, error) {
	tax, err := strconv.ParseInt(taxid, 10, 64)
	if err != nil {
		return "", fmt.Errorf("taxid %q: %w", taxid, err)
	}
	if strings.HasPrefix(id, "gnl|BL_ORD_ID|") {
		// Not built with -parse_seqids: the title is the whole defline.
		s.parsed = false
		switch {
		case s.taxid < 0:
			s.taxid = tax
		case s.taxid != tax:
			return "", errors.New("sequences of a database without parsed seqids have different taxids, which makeblastdb can only give one by one with -parse_seqids: rebuild it with -parse_seqids, or with volumes of its own (-max_file_sz)")
		}
		return title, nil
	}
	if tax != 0 && tw != nil {
		s.taxids = true
		fmt.Fprintf(tw, "%s %d\n", id, tax)
	}
	if title == "" {
		return id, nil
	}
	return id + " " + title, nil
}

// stream starts cmd and returns its stdout and a wait that reports how it
// ended.
func stream(cmd *exec.Cmd) (*bufio.Reader, func() error, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	wait := func() error {
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, tail(stderr.Bytes()))
		}
		return nil
	}
	return bufio.NewReaderSize(out, 1<<20), wait, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
