package refsearch

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/blastfleet/blastfleet/internal/bio/fasta"
)

// MakeProfileDB builds a profile database, as rpsblast and rpstblastn
// search, in dir under name and returns its path: one profile per every-th
// record of the FASTA file seqs (the first of each run of that many, as a
// family's first member where families come in runs), in their order,
// each the PSSM psiblast builds for that seed in two iterations against
// the sequence database db. Profiles are named by their seeds' ids
// (psiblast -parse_deflines), which makeprofiledb wants unique. The same
// inputs give the same profiles.
func MakeProfileDB(ctx context.Context, db, seqs string, every int, dir, name string) (string, error) {
	f, err := os.Open(seqs)
	if err != nil {
		return "", err
	}
	defer f.Close()
	all, err := fasta.ReadAll(f, seqs, fasta.Protein)
	if err != nil {
		return "", err
	}
	var recs []*fasta.Record
	for i := 0; i < len(all); i += max(every, 1) {
		recs = append(recs, all[i])
	}
	work := filepath.Join(dir, name+"-pssm")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", err
	}
	var list strings.Builder
	for i, r := range recs {
		var buf bytes.Buffer
		if err := fasta.Write(&buf, r); err != nil {
			return "", err
		}
		seed, pssm := filepath.Join(work, fmt.Sprintf("p%05d.fa", i)), filepath.Join(work, fmt.Sprintf("p%05d.smp", i))
		if err := os.WriteFile(seed, buf.Bytes(), 0o644); err != nil {
			return "", err
		}
		if err := run(ctx, "psiblast", "-query", seed, "-db", db, "-num_iterations", "2", "-evalue", "1e-3",
			"-parse_deflines", "-save_pssm_after_last_round", "-out_pssm", pssm); err != nil {
			return "", err
		}
		list.WriteString(pssm + "\n")
	}
	pn := filepath.Join(work, "profiles.pn")
	if err := os.WriteFile(pn, []byte(list.String()), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)
	if err := run(ctx, "makeprofiledb", "-in", pn, "-out", out, "-title", name); err != nil {
		return "", err
	}
	return out, nil
}

// run runs a BLAST+ tool, its output discarded.
func run(ctx context.Context, argv ...string) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", argv[0], err, b)
	}
	return nil
}
