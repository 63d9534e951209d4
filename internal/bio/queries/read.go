// Package queries reads a campaign's or a search's query set, the one way
// the planner and the engine both read it: every record validated for the
// program's alphabet, and the object measured as stored (SHA-256 and size
// of its bytes, gzip or not), so a plan's checksum is the engine's.
package queries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/fasta"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// Stats describe a query object as read.
type Stats struct {
	SHA256  string // of the object's bytes as stored
	Size    int64  // bytes as stored
	Count   int
	Letters int64
}

// Read streams every query of the object at location (a path or an s3://
// key, reached with the queries' storage variables, objstore.RoleQueries)
// to each, in order, and returns the object's stats. Errors say --queries
// and name the file, line and record.
func Read(ctx context.Context, location string, p blast.Program, each func(*fasta.Record) error) (Stats, error) {
	st, key, err := objstore.OpenObjectAs(ctx, objstore.RoleQueries, location)
	if err != nil {
		return Stats{}, fmt.Errorf("--queries: %w", err)
	}
	return ReadFrom(ctx, st, key, location, p, each)
}

// ReadFrom is Read of the object key in st, which is at location.
func ReadFrom(ctx context.Context, st objstore.Store, key, location string, p blast.Program, each func(*fasta.Record) error) (Stats, error) {
	var s Stats
	rc, err := st.Get(ctx, key)
	if err != nil {
		return s, fmt.Errorf("--queries %s: %w", location, err)
	}
	defer rc.Close()
	h := sha256.New()
	cw := &byteCounter{}
	src := io.TeeReader(rc, io.MultiWriter(h, cw))
	alpha := fasta.Nucleotide
	if p.QueryType() == "prot" {
		alpha = fasta.Protein
	}
	r, err := fasta.NewReader(src, location, alpha)
	if err != nil {
		return s, fmt.Errorf("--queries: %w", err)
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s, fmt.Errorf("--queries (%s queries for %s): %w", p.QueryType(), p, err)
		}
		if err := ctx.Err(); err != nil {
			return s, err
		}
		s.Count++
		s.Letters += int64(len(rec.Seq))
		if err := each(rec); err != nil {
			return s, err
		}
	}
	if s.Count == 0 {
		return s, fmt.Errorf("--queries %s: no sequences", location)
	}
	// The reader may stop at the last record before the stream's end: the
	// checksum covers the whole object.
	if _, err := io.Copy(io.MultiWriter(h, cw), rc); err != nil {
		return s, fmt.Errorf("--queries %s: %w", location, err)
	}
	s.SHA256 = hex.EncodeToString(h.Sum(nil))
	s.Size = cw.n
	return s, nil
}

type byteCounter struct{ n int64 }

func (c *byteCounter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
