// Package blastdbtest builds prebuilt BLAST databases shaped like NCBI's
// for tests and benchmarks: generated sequence families (near-identical
// members, exact duplicates that tie), accession-style ids, taxids from
// makeblastdb -taxid_map (some sequences carry two deflines of different
// taxa, as nr's merged entries do), several volumes, a taxonomy database of
// made-up taxa, and the volumes packed as NCBI packs them: NAME.NN.tar.gz
// with NAME.NN.tar.gz.md5, taxdb.tar.gz, and NAME-<type>-metadata.json.
package blastdbtest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/taxdb"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// Taxa are the made-up taxa of the taxonomy database. Taxid 9999 is
// given to sequences but has no names, as happens with a stale taxdb.
var Taxa = []taxdb.Taxon{
	{TaxID: 9001, Scientific: "Fictus primus", Common: "first fiction", BlastName: "fictions", Kingdom: "Eukaryota"},
	{TaxID: 9002, Scientific: "Fictus secundus", Common: "second fiction", BlastName: "fictions", Kingdom: "Eukaryota"},
	{TaxID: 9003, Scientific: "Bacillus imaginarius", Common: "imaginary bacillus", BlastName: "firmicutes", Kingdom: "Bacteria"},
	{TaxID: 9004, Scientific: "Archaeum falsum", Common: "false archaeon", BlastName: "archaea", Kingdom: "Archaea"},
	{TaxID: 9005, Scientific: "Ultimus fictus", Common: "last fiction", BlastName: "fictions", Kingdom: "Eukaryota"},
}

// Options shape the database.
type Options struct {
	Name      string
	Protein   bool
	Synth     synth.Options // sequences and queries
	VolumeMax int           // makeblastdb -max_file_sz in bytes: small gives several volumes
	// Masks puts a low-complexity stretch into every third sequence and
	// builds the database with dustmasker's (segmasker's for proteins)
	// masks: makeblastdb -mask_data.
	Masks bool
}

// DB is a built database.
type DB struct {
	Name     string
	Original string // directory holding the database as makeblastdb and the taxdb left it: the reference
	Packed   string // directory holding the NCBI-style archives, md5 files and metadata
	Queries  string // query FASTA
	Volumes  int
}

// Path is the original database's -db argument.
func (d *DB) Path() string { return filepath.Join(d.Original, d.Name) }

// Build builds the database under dir.
func Build(dir string, o Options) (*DB, error) {
	d := &DB{Name: o.Name, Original: filepath.Join(dir, "original"), Packed: filepath.Join(dir, "packed"), Queries: filepath.Join(dir, "queries.fa")}
	for _, p := range []string{d.Original, d.Packed} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, err
		}
	}
	var db, q bytes.Buffer
	o.Synth.Protein = o.Protein
	if err := synth.Write(o.Synth, &db, &q); err != nil {
		return nil, err
	}
	if err := os.WriteFile(d.Queries, q.Bytes(), 0o644); err != nil {
		return nil, err
	}
	fa, tmap := accessions(db.Bytes(), o.Synth.Families, o.Protein, o.Masks)
	in, mapFile := filepath.Join(dir, "db.fa"), filepath.Join(dir, "taxid.map")
	if err := os.WriteFile(in, fa, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(mapFile, tmap, 0o644); err != nil {
		return nil, err
	}
	typ := "nucl"
	if o.Protein {
		typ = "prot"
	}
	args := []string{"-in", in, "-dbtype", typ, "-parse_seqids", "-taxid_map", mapFile, "-blastdb_version", "5",
		"-title", o.Name + " (blastdbtest)", "-out", filepath.Join(d.Original, o.Name)}
	if o.VolumeMax > 0 {
		args = append(args, "-max_file_sz", fmt.Sprint(o.VolumeMax))
	}
	if o.Masks {
		masker, masks := "dustmasker", filepath.Join(dir, "masks.asnb")
		if o.Protein {
			masker = "segmasker"
		}
		if out, err := exec.Command(masker, "-in", in, "-parse_seqids", "-outfmt", "maskinfo_asn1_bin", "-out", masks).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: %w: %s", masker, err, out)
		}
		args = append(args, "-mask_data", masks)
	}
	if out, err := exec.Command("makeblastdb", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("makeblastdb: %w: %s", err, out)
	}
	if err := taxdb.Write(d.Original, Taxa); err != nil {
		return nil, err
	}
	return d, d.pack(typ)
}

// accessions gives synth's sequences NCBI-style accessions and taxids:
// family f's members taxon 9001+f%4, but the last quarter of the families
// (the end of the database: its last volumes) taxon 9005, unrelated
// sequences 9999; every fifth sequence also carries a second defline of
// another taxon, joined with ^A as in nr.
func accessions(fa []byte, families int, protein, lowComplexity bool) (out, taxmap []byte) {
	stretch := strings.Repeat("A", 40) + strings.Repeat("CA", 20)
	if protein {
		stretch = strings.Repeat("Q", 30) + strings.Repeat("PG", 15)
	}
	prefix, second := "XM_", "XR_"
	if protein {
		prefix, second = "XP_", "WP_"
	}
	var b, m bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(fa))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	n, masked := 0, lowComplexity
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, ">") {
			if lowComplexity && n%3 == 1 && len(l) > 20 {
				l = l[:10] + stretch + l[10:]
				lowComplexity = false // once per record: reset at the next header
			}
			b.WriteString(l + "\n")
			continue
		}
		lowComplexity = lowComplexity || masked
		id, desc, _ := strings.Cut(l[1:], " ")
		tax := 9999
		var f int
		if _, err := fmt.Sscanf(id, "fam%d_", &f); err == nil {
			tax = 9001 + f%4
			if f >= families-families/4 {
				tax = 9005
			}
		}
		acc := fmt.Sprintf("%s%06d.1", prefix, n+1)
		fmt.Fprintf(&b, ">%s %s (%s)", acc, desc, id)
		fmt.Fprintf(&m, "%s %d\n", acc, tax)
		if n%5 == 2 {
			acc2 := fmt.Sprintf("%s%06d.1", second, n+1)
			other := 9001 + (tax+1)%4
			fmt.Fprintf(&b, "\x01%s merged entry of %s", acc2, id)
			fmt.Fprintf(&m, "%s %d\n", acc2, other)
		}
		b.WriteString("\n")
		n++
	}
	return b.Bytes(), m.Bytes()
}

// pack writes NAME.NN.tar.gz per volume (its files, plus the alias and the
// database-wide LMDB files, which NCBI repeats in every archive), an .md5
// beside each, taxdb.tar.gz and the metadata file.
func (d *DB) pack(typ string) error {
	ents, err := os.ReadDir(d.Original)
	if err != nil {
		return err
	}
	vols := map[string][]string{}
	var shared []string
	for _, e := range ents {
		name := e.Name()
		rest := strings.TrimPrefix(name, d.Name+".")
		switch {
		case strings.HasPrefix(name, "taxdb."):
		case strings.Count(rest, ".") == 1:
			vol := d.Name + "." + rest[:strings.Index(rest, ".")]
			vols[vol] = append(vols[vol], name)
		default:
			shared = append(shared, name)
		}
	}
	if len(vols) == 0 { // one volume: NAME.nsq and so on
		vols[d.Name], shared = shared, nil
	}
	names := make([]string, 0, len(vols))
	for v := range vols {
		names = append(names, v)
	}
	slices.Sort(names)
	d.Volumes = len(names)
	var archives []string
	for _, v := range names {
		archive := v + ".tar.gz"
		if err := d.archive(archive, append(vols[v], shared...)); err != nil {
			return err
		}
		archives = append(archives, archive)
	}
	if err := d.archive("taxdb.tar.gz", []string{taxdb.DataFile, taxdb.IndexFile}); err != nil {
		return err
	}
	info, err := exec.Command("blastdbcmd", "-db", d.Path(), "-info").Output()
	if err != nil {
		return fmt.Errorf("blastdbcmd -info: %w", err)
	}
	var seqs, letters int64
	var unit string
	if i := bytes.Index(info, []byte(" sequences; ")); i >= 0 {
		line := info[bytes.LastIndexByte(info[:i], '\n')+1:]
		fmt.Sscanf(strings.ReplaceAll(string(line), ",", ""), "%d sequences; %d total %s", &seqs, &letters, &unit)
	}
	meta := map[string]any{
		"dbname": d.Name, "version": "1.1", "dbtype": map[string]string{"nucl": "Nucleotide", "prot": "Protein"}[typ],
		"description": d.Name + " (blastdbtest)", "number-of-sequences": seqs, "number-of-letters": letters,
		"number-of-volumes": len(names), "files": archives, "last-updated": "2026-01-01T00:00:00",
	}
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d.Packed, d.Name+"-"+typ+"-metadata.json"), data, 0o644)
}

func (d *DB) archive(name string, files []string) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	slices.Sort(files)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(d.Original, f))
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: f, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	sum := md5.Sum(buf.Bytes())
	if err := os.WriteFile(filepath.Join(d.Packed, name), buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d.Packed, name+".md5"), []byte(hex.EncodeToString(sum[:])+"  "+name+"\n"), 0o644)
}
