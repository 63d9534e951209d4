package kubecmd

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
)

// isTarball: a query file that is a tar archive of FASTA files, as
// ElasticBLAST takes them.
func isTarball(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".tar") || strings.HasSuffix(n, ".tar.gz") || strings.HasSuffix(n, ".tgz")
}

// needsJoin: --queries names several files, or a tarball, which become
// one queries object.
func needsJoin(files []string) bool {
	return len(files) > 1 || len(files) == 1 && localQueries(files[0]) && isTarball(files[0])
}

// joinedName is the queries object's file name: a tarball's own name as
// FASTA, else queries.fa.
func joinedName(files []string) string {
	if len(files) == 1 {
		base := filepath.Base(files[0])
		for _, ext := range []string{".tar.gz", ".tgz", ".tar"} {
			if strings.HasSuffix(strings.ToLower(base), ext) {
				return base[:len(base)-len(ext)] + ".fa"
			}
		}
	}
	return "queries.fa"
}

// joinQueries writes the query files (plain or gzip FASTA, or tarballs of
// them, their members in archive order) into one plain FASTA file in dir,
// in the order given, and returns its path. Every record is checked for
// program's alphabet first, part by part, so an error names the file (and
// the member); the bytes are copied as they are, decompressed.
func joinQueries(ctx context.Context, dir string, files []string, program string) (string, error) {
	p, err := blast.ParseProgram(program)
	if err != nil {
		return "", fmt.Errorf("--program: %w", err)
	}
	alpha := fasta.Nucleotide
	if p.QueryType() == "prot" {
		alpha = fasta.Protein
	}
	path := filepath.Join(dir, joinedName(files))
	out, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer out.Close()
	w := bufio.NewWriterSize(out, 1<<20)
	j := &joiner{ctx: ctx, w: w, alpha: alpha, what: fmt.Sprintf("%s queries for %s", p.QueryType(), p)}
	for _, f := range files {
		if !localQueries(f) {
			return "", fmt.Errorf("--queries %s: several --queries, or a tarball, are files here; an object in a bucket is one --queries alone", f)
		}
		if err := checkLocalQueries(f); err != nil {
			return "", err
		}
		if isTarball(f) {
			err = j.tarball(f)
		} else {
			err = j.file(f)
		}
		if err != nil {
			return "", err
		}
	}
	if j.parts == 0 {
		return "", fmt.Errorf("--queries %s: no FASTA file in it", strings.Join(files, ", "))
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return path, out.Close()
}

// joiner appends query parts to w.
type joiner struct {
	ctx   context.Context
	w     *bufio.Writer
	alpha fasta.Alphabet
	what  string
	parts int
}

// file appends one FASTA file, gzip or not.
func (j *joiner) file(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("--queries: %w", err)
	}
	defer f.Close()
	return j.part(name, f)
}

// tarball appends each regular member of a tar archive (gzip or not), in
// archive order; directories, links and hidden files are skipped.
func (j *joiner) tarball(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("--queries: %w", err)
	}
	defer f.Close()
	r, _, err := gunzipped(f)
	if err != nil {
		return fmt.Errorf("--queries %s: %w", name, err)
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("--queries %s: reading the tarball: %w", name, err)
		}
		if h.Typeflag != tar.TypeReg || strings.HasPrefix(filepath.Base(h.Name), ".") {
			continue // macOS's ._ files among them
		}
		if err := j.part(name+": member "+h.Name, tr); err != nil {
			return err
		}
	}
}

// part copies one part's FASTA text, decompressed, checking its records
// as they pass.
func (j *joiner) part(name string, r io.Reader) error {
	text, gz, err := gunzipped(r)
	if err != nil {
		return fmt.Errorf("--queries %s: %w", name, err)
	}
	if gz {
		name += " (gunzipped)" // the reader below sees plain text
	}
	last := byte('\n')
	fr, err := fasta.NewReader(io.TeeReader(text, &lastByte{w: j.w, last: &last}), name, j.alpha)
	if err != nil {
		return fmt.Errorf("--queries: %w", err)
	}
	records := 0
	for {
		_, err := fr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("--queries (%s): %w", j.what, err)
		}
		if err := j.ctx.Err(); err != nil {
			return err
		}
		records++
	}
	if records == 0 {
		return fmt.Errorf("--queries %s: no sequences", name)
	}
	if last != '\n' { // the next part's > starts a line
		if err := j.w.WriteByte('\n'); err != nil {
			return err
		}
	}
	j.parts++
	return nil
}

// gunzipped is r decompressed if it starts with gzip's magic.
func gunzipped(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReader(r)
	magic, err := br.Peek(2)
	if err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		return zr, true, err
	}
	return br, false, nil
}

// lastByte remembers the last byte written through it.
type lastByte struct {
	w    io.Writer
	last *byte
}

func (l *lastByte) Write(p []byte) (int, error) {
	if len(p) > 0 {
		*l.last = p[len(p)-1]
	}
	return l.w.Write(p)
}
