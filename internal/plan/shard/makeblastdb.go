package shard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// blastVersion asks makeblastdb for its version ("2.12.0+"). Running it
// first also proves makeblastdb is there before any work is done.
func blastVersion(ctx context.Context, bin string) (string, error) {
	out, err := exec.CommandContext(ctx, bin, "-version").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("running %s -version: %w: %s", bin, err, tail(ee.Stderr))
		}
		return "", fmt.Errorf("running %s -version (is BLAST+ installed and on PATH?): %w", bin, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	_, v, ok := strings.Cut(first, ":")
	if v = strings.TrimSpace(v); !ok || v == "" {
		return "", fmt.Errorf("%s -version printed %q, want \"makeblastdb: <version>\"", bin, first)
	}
	return v, nil
}

var addedRe = regexp.MustCompile(`added (\d+) sequences`)

// makeblastdbRun is the outcome of one makeblastdb run.
type makeblastdbRun struct {
	added    int64  // sequences makeblastdb says it added
	warnings string // stderr of a successful run (e.g. ids it rewrote)
}

// runMakeblastdb builds one shard's BLAST DB in dir from the FASTA at in,
// with an argv list (never a shell: names and titles come from users).
//
// The FASTA goes through stdin ("-in -"): given a file, makeblastdb 2.12
// first guesses its format, even with -input_type fasta, and the guess
// fails on small files of unusual content ("does not match input format
// type"), e.g. a shard holding one short sequence. Stdin skips the guess.
func runMakeblastdb(ctx context.Context, bin, dir, in string, n shardNames, t manifest.DBType) (makeblastdbRun, error) {
	f, err := os.Open(in)
	if err != nil {
		return makeblastdbRun{}, fmt.Errorf("makeblastdb for %s: %w", n.name, err)
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, bin,
		"-in", "-", "-input_type", "fasta", "-dbtype", string(t), "-parse_seqids",
		"-out", n.db, "-title", n.title)
	cmd.Dir = dir
	cmd.Stdin = f
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := tail(stderr.Bytes())
		if msg == "" {
			msg = tail(stdout.Bytes())
		}
		return makeblastdbRun{}, fmt.Errorf("makeblastdb for %s failed: %w: %s", n.name, err, msg)
	}
	m := addedRe.FindSubmatch(stdout.Bytes())
	if m == nil {
		return makeblastdbRun{}, fmt.Errorf("makeblastdb for %s: no \"added N sequences\" in its output: %s", n.name, tail(stdout.Bytes()))
	}
	added, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		return makeblastdbRun{}, fmt.Errorf("makeblastdb for %s: sequence count %q: %w", n.name, m[1], err)
	}
	return makeblastdbRun{added: added, warnings: strings.TrimSpace(stderr.String())}, nil
}

// tail keeps the end of a program's output: where its error is.
func tail(b []byte) string {
	const maxLines, maxBytes = 15, 2000
	s := strings.TrimSpace(string(b))
	lines := strings.Split(s, "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	s = strings.Join(lines, "\n")
	if len(s) > maxBytes {
		s = "…" + s[len(s)-maxBytes:]
	}
	return s
}
