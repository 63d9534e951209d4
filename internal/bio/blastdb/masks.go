package blastdb

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// MaskAlgorithm is a masking algorithm applied to a database's sequences:
// -db_soft_mask and -db_hard_mask name it by ID.
type MaskAlgorithm struct {
	ID      int
	Name    string // dust, seg, windowmasker, repeat or other
	Options string // as makeblastdb recorded them, e.g. "window=64; level=20; linker=1"
}

var maskLineRe = regexp.MustCompile(`^\s*(\d+)\s+(\S+)\s*(.*?)\s*$`)

// parseMaskAlgorithms reads the masking algorithms blastdbcmd -info
// reports.
func parseMaskAlgorithms(info string) ([]MaskAlgorithm, error) {
	_, rest, ok := strings.Cut(info, "Available filtering algorithms")
	if !ok {
		return nil, nil
	}
	var algs []MaskAlgorithm
	for i, l := range strings.Split(rest, "\n") {
		if i == 0 || strings.HasPrefix(strings.TrimSpace(l), "Algorithm ID") {
			continue
		}
		if strings.TrimSpace(l) == "" {
			if len(algs) > 0 {
				break
			}
			continue
		}
		m := maskLineRe.FindStringSubmatch(l)
		if m == nil {
			break
		}
		id, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("masking algorithm id %q: %w", m[1], err)
		}
		algs = append(algs, MaskAlgorithm{ID: id, Name: m[2], Options: m[3]})
	}
	return algs, nil
}

// Command runs blastdbcmd on the whole database with args, as Describe
// does (in its directory, BLASTDB unset).
func (d *Database) Command(ctx context.Context, args ...string) *exec.Cmd {
	return blastdbcmd(ctx, d.bin, append([]string{"-db", d.path}, args...)...)
}
