package shard

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// aliasContent is the shard's alias file. Its STATS lines carry the whole
// database's sequence count and letters, which makes BLAST compute the same
// E-values on the shard as on the unsharded database.
func aliasContent(n shardNames, totalSeqs, totalLetters int64) []byte {
	return fmt.Appendf(nil, "TITLE %s\nDBLIST %s\nSTATS_NSEQ %d\nSTATS_TOTLEN %d\n",
		n.title, n.db, totalSeqs, totalLetters)
}

func writeAlias(dir string, n shardNames, totalSeqs, totalLetters int64) error {
	if err := os.WriteFile(filepath.Join(dir, n.alias), aliasContent(n, totalSeqs, totalLetters), 0o644); err != nil {
		return fmt.Errorf("writing alias file %s: %w", n.alias, err)
	}
	return nil
}

// writeIDs writes the shard's ids file (see idsTo).
func writeIDs(dir string, n shardNames, ordinals []int, seqs []seqInfo) error {
	f, err := os.Create(filepath.Join(dir, n.ids))
	if err != nil {
		return fmt.Errorf("writing ids file: %w", err)
	}
	defer f.Close()
	if err := idsTo(f, ordinals, seqs); err != nil {
		return fmt.Errorf("writing ids file %s: %w", n.ids, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing ids file %s: %w", n.ids, err)
	}
	return nil
}

// idsTo writes "<global ordinal>\t<id>" for the shard's sequences in shard
// OID order, which is ascending ordinal.
func idsTo(w io.Writer, ordinals []int, seqs []seqInfo) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, ord := range ordinals {
		buf = strconv.AppendInt(buf[:0], int64(ord), 10)
		buf = append(buf, '\t')
		buf = append(buf, seqs[ord].id...)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// plannedFiles gives the SHA-256 of the shard files that the plan alone
// determines (alias and ids). They pin a built shard to this input and
// this balance: the ids file lists exactly the sequences the shard holds.
func plannedFiles(s *shardPlan, src *source) map[string]string {
	alias := sha256.Sum256(aliasContent(s.names, int64(len(src.seqs)), src.letters))
	h := sha256.New()
	idsTo(h, s.ordinals, src.seqs) // a hash never fails to write
	return map[string]string{
		s.names.alias: hex.EncodeToString(alias[:]),
		s.names.ids:   hex.EncodeToString(h.Sum(nil)),
	}
}
