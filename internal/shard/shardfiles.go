package shard

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// writeAlias writes the shard's alias file. Its STATS lines carry the whole
// database's sequence count and letters, which makes BLAST compute the same
// E-values on the shard as on the unsharded database.
func writeAlias(dir string, n shardNames, totalSeqs, totalLetters int64) error {
	content := fmt.Sprintf("TITLE %s\nDBLIST %s\nSTATS_NSEQ %d\nSTATS_TOTLEN %d\n",
		n.title, n.db, totalSeqs, totalLetters)
	if err := os.WriteFile(filepath.Join(dir, n.alias), []byte(content), 0o644); err != nil {
		return fmt.Errorf("writing alias file %s: %w", n.alias, err)
	}
	return nil
}

// writeIDs writes "<global ordinal>\t<id>" for the shard's sequences in
// shard OID order, which is ascending ordinal.
func writeIDs(dir string, n shardNames, ordinals []int, seqs []seqInfo) error {
	f, err := os.Create(filepath.Join(dir, n.ids))
	if err != nil {
		return fmt.Errorf("writing ids file: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	var buf []byte
	for _, ord := range ordinals {
		buf = strconv.AppendInt(buf[:0], int64(ord), 10)
		buf = append(buf, '\t')
		buf = append(buf, seqs[ord].id...)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing ids file %s: %w", n.ids, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing ids file %s: %w", n.ids, err)
	}
	return nil
}
