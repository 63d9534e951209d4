// Package blastdb reads a prebuilt BLAST database as NCBI publishes it and
// update_blastdb.pl leaves it: volumes NAME.00, NAME.01 ... (or a single
// volume NAME), unpacked or packed one .tar.gz per volume with a .md5 file
// beside each, optionally NAME-<type>-metadata.json, and the taxonomy
// database (taxdb.btd/bti, or taxdb.tar.gz) beside them. Stage brings it
// into a local directory, checked and unpacked; Describe asks blastdbcmd
// what it holds, volume by volume and sequence by sequence.
package blastdb

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Location splits DIR/NAME or s3://bucket/prefix/NAME into the place the
// files are and the database's name.
func Location(src string) (where, name string, err error) {
	src = strings.TrimRight(src, "/")
	i := strings.LastIndex(src, "/")
	if i < 0 {
		return ".", src, checkName(src)
	}
	where, name = src[:i], src[i+1:]
	if where == "" {
		where = "/"
	}
	if strings.HasSuffix(where, ":/") { // s3://NAME: no bucket
		return "", "", fmt.Errorf("%q: want s3://bucket/prefix/NAME", src)
	}
	return where, name, checkName(name)
}

func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, " \t\n\x00") {
		return fmt.Errorf("database name %q: want the name BLAST's -db takes (nt, swissprot, ...), without spaces", name)
	}
	return nil
}

// Staged is a database unpacked in a local directory.
type Staged struct {
	Dir      string // holds NAME's files and taxdb.btd/bti if the source had them
	Name     string
	Packed   []string // .tar.gz files unpacked, each checked against its .md5
	Metadata *Metadata
}

// Path is the -db argument for the whole database.
func (s *Staged) Path() string { return filepath.Join(s.Dir, s.Name) }

// belongs says whether key (a base name) is one of database name's files,
// or the taxonomy database's, as NCBI lays them out.
func belongs(key, name string) bool {
	if strings.HasPrefix(key, "taxdb.") {
		return true
	}
	if strings.HasPrefix(key, name+"-") && strings.HasSuffix(key, "-metadata.json") {
		return true
	}
	rest, ok := strings.CutPrefix(key, name+".")
	if !ok {
		return false
	}
	if rest == "tar.gz" || rest == "tar.gz.md5" { // one volume: swissprot.tar.gz
		return true
	}
	// NAME.00.tar.gz, NAME.00.nsq, NAME.nal, NAME.ndb: the part before the
	// first extension is a volume number or nothing.
	first, _, _ := strings.Cut(rest, ".")
	return first != "" && (strings.Trim(first, "0123456789") == "" || !strings.Contains(rest, "."))
}

// Stage brings database src (DIR/NAME or s3://bucket/prefix/NAME) into
// work: every file of the database is copied (a local directory holding it
// unpacked is used where it is), every .tar.gz is checked against its .md5
// file and unpacked, and the metadata file, if any, is read. Nothing is
// unpacked from an archive whose checksum is wrong; the error names it.
func Stage(ctx context.Context, src, work string, progress func(format string, args ...any)) (*Staged, error) {
	where, name, err := Location(src)
	if err != nil {
		return nil, err
	}
	st, err := objstore.Open(ctx, where)
	if err != nil {
		return nil, fmt.Errorf("--blastdb %s: %w", src, err)
	}
	infos, err := st.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", st.URL(""), err)
	}
	var keys []string
	sizes := map[string]int64{}
	for _, in := range infos {
		if !strings.Contains(in.Key, "/") && belongs(in.Key, name) {
			keys = append(keys, in.Key)
			sizes[in.Key] = in.Size
		}
	}
	slices.Sort(keys)
	if !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, name+".") }) {
		return nil, fmt.Errorf("no BLAST database %q at %s: no %s.* files (want NAME.nal/.pal, NAME.NN.tar.gz or NAME.n*/p* volume files)", name, st.URL(""), name)
	}
	s := &Staged{Dir: filepath.Join(work, "blastdb"), Name: name}
	local := ""
	if d, ok := st.(*objstore.Dir); ok {
		local = d.Root()
	}
	packed := slices.ContainsFunc(keys, isArchive)
	if local != "" && !packed {
		s.Dir = local // unpacked in a directory: used in place
	} else if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("staging: %w", err)
	}
	// Archives are checked against their .md5 files and unpacked one at a
	// time (the archive is deleted once unpacked, when it was a copy), so
	// the work directory holds the database plus one archive at most.
	for _, key := range keys {
		if strings.HasSuffix(key, ".md5") {
			if !slices.Contains(keys, strings.TrimSuffix(key, ".md5")) {
				return nil, fmt.Errorf("%s has no %s beside it", st.URL(key), strings.TrimSuffix(key, ".md5"))
			}
			continue
		}
		if s.Dir == local {
			continue
		}
		file := filepath.Join(work, key)
		copied := local == ""
		if copied {
			progress("fetching %s (%d bytes)", st.URL(key), sizes[key])
			if err := download(ctx, st, key, file); err != nil {
				return nil, err
			}
		} else {
			file = filepath.Join(local, key)
		}
		if !isArchive(key) {
			if err := moveOrCopy(file, filepath.Join(s.Dir, key), copied); err != nil {
				return nil, err
			}
			continue
		}
		if !slices.Contains(keys, key+".md5") {
			return nil, fmt.Errorf("%s has no %s.md5 beside it: NCBI publishes one per archive, and an archive is not unpacked unchecked", st.URL(key), key)
		}
		if err := checkMD5(ctx, st, key, file); err != nil {
			return nil, err
		}
		progress("unpacking %s", key)
		if err := untar(file, s.Dir, unpackLimit(sizes[key])); err != nil {
			return nil, fmt.Errorf("unpacking %s: %w", st.URL(key), err)
		}
		s.Packed = append(s.Packed, key)
		if copied {
			os.Remove(file)
		}
	}
	if err := s.readMetadata(keys); err != nil {
		return nil, err
	}
	return s, nil
}

func isArchive(key string) bool {
	return strings.HasSuffix(key, ".tar.gz") || strings.HasSuffix(key, ".tgz")
}

func download(ctx context.Context, st objstore.Store, key, dst string) error {
	rc, err := st.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("fetching %s: %w", st.URL(key), err)
	}
	defer rc.Close()
	f, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("fetching %s: %w", st.URL(key), err)
	}
	if _, err := io.Copy(f, rc); err != nil {
		f.Close()
		return fmt.Errorf("fetching %s: %w", st.URL(key), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("fetching %s: %w", st.URL(key), err)
	}
	return nil
}

func moveOrCopy(src, dst string, move bool) error {
	if move {
		if err := os.Rename(src, dst); err == nil {
			return nil
		}
	}
	return CopyFile(src, dst)
}

// CopyFile copies src to dst as a stream (a taxonomy database's file is
// hundreds of MB).
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return out.Close()
}

// checkMD5 compares file with the sum in key's .md5 file ("<hex>  <name>",
// as md5sum prints it and NCBI publishes it).
func checkMD5(ctx context.Context, st objstore.Store, key, file string) error {
	data, _, err := st.GetBytes(ctx, key+".md5")
	if err != nil {
		return fmt.Errorf("reading %s: %w", st.URL(key+".md5"), err)
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 || len(fields[0]) != 32 {
		return fmt.Errorf("%s: no MD5 sum in it (want \"<32 hex digits>  %s\")", st.URL(key+".md5"), key)
	}
	if len(fields) > 1 && path.Base(strings.TrimPrefix(fields[1], "*")) != key {
		return fmt.Errorf("%s names %s, not %s", st.URL(key+".md5"), fields[1], key)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("checking %s: %w", st.URL(key), err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, fields[0]) {
		return fmt.Errorf("%s is corrupt: MD5 %s, %s says %s (fetch it again)", st.URL(key), got, key+".md5", fields[0])
	}
	return nil
}

// An archive unpacks to at most maxUnpackRatio times its size, and never
// less than minUnpackLimit: BLAST volumes compress a few times at most
// (sequence is packed already), while a gzip bomb unpacks a thousandfold
// and would fill the builder's disk. Archives hold at most
// maxArchiveEntries files.
const (
	maxUnpackRatio    = 50
	minUnpackLimit    = 256 << 20
	maxArchiveEntries = 10000
)

// unpackLimit is how many bytes an archive of size bytes may unpack to.
func unpackLimit(size int64) int64 {
	if size > (1<<62)/maxUnpackRatio {
		return 1 << 62
	}
	return max(minUnpackLimit, size*maxUnpackRatio)
}

// untar unpacks a gzip'd tar of plain files into dir, at most limit bytes
// of them. A file another archive already unpacked (NCBI repeats the
// database-wide files in each volume's archive) must have the same bytes.
func untar(file, dir string, limit int64) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	var total int64
	for entries := 0; ; entries++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag == tar.TypeDir {
			continue
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if h.Typeflag != tar.TypeReg || strings.Contains(name, "/") || name == "." || name == ".." {
			return fmt.Errorf("entry %q: want plain files at the top level", h.Name)
		}
		// The tar reader yields exactly the declared size, so checking it
		// before writing bounds what is written.
		if entries >= maxArchiveEntries {
			return fmt.Errorf("more than %d entries: not a BLAST database volume", maxArchiveEntries)
		}
		if h.Size < 0 || h.Size > limit-total {
			return fmt.Errorf("entry %s: %d bytes would unpack the archive past %d bytes (%dx its size, at least %d MiB): not a BLAST database volume",
				name, h.Size, limit, maxUnpackRatio, minUnpackLimit>>20)
		}
		total += h.Size
		if err := writeEntry(tr, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("entry %s: %w", name, err)
		}
	}
}

func writeEntry(r io.Reader, dst string) error {
	if old, err := os.Open(dst); err == nil {
		defer old.Close()
		a, b := sha256.New(), sha256.New()
		if _, err := io.Copy(a, old); err != nil {
			return err
		}
		if _, err := io.Copy(b, r); err != nil {
			return err
		}
		if !bytes.Equal(a.Sum(nil), b.Sum(nil)) {
			return fmt.Errorf("another archive holds a different %s", filepath.Base(dst))
		}
		return nil
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
