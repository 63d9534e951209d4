package devstack

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The inputs config/samples name, which the stack puts in its bucket so
// `kubectl apply -k config/samples/` builds and searches as written.
const (
	SampleDatabaseKey = "samples/proteins.fa.gz"
	SampleQueriesKey  = "samples/queries.fa.gz"
)

// Sizes of the sample inputs: small enough that the sample campaign
// completes in seconds on the stack, large enough for 2 shards and
// chunks of several queries.
const (
	sampleProteins = 400
	sampleQueries  = 24
)

// SampleInputs are a protein FASTA and queries cut from some of its
// sequences with one residue in ten changed, so blastp finds each its
// source and more. The same bytes every time: a seeded generator.
func SampleInputs() (db, queries []byte) {
	const residues = "ACDEFGHIKLMNPQRSTVWY"
	r := rand.New(rand.NewPCG(33, 32))
	seqs := make([][]byte, sampleProteins)
	var dbf, qf strings.Builder
	for i := range seqs {
		s := make([]byte, 80+r.IntN(320))
		for j := range s {
			s[j] = residues[r.IntN(len(residues))]
		}
		seqs[i] = s
		fmt.Fprintf(&dbf, ">sp|S%05d|SAMPLE%d sample protein %d\n", i+1, i+1, i+1)
		writeWrapped(&dbf, s)
	}
	for i := range sampleQueries {
		src := seqs[r.IntN(len(seqs))]
		n := min(len(src), 60+r.IntN(120))
		off := r.IntN(len(src) - n + 1)
		q := bytes.Clone(src[off : off+n])
		for j := range q {
			if r.IntN(10) == 0 {
				q[j] = residues[r.IntN(len(residues))]
			}
		}
		fmt.Fprintf(&qf, ">query%d fragment of a sample protein\n", i+1)
		writeWrapped(&qf, q)
	}
	return gzipped(dbf.String()), gzipped(qf.String())
}

func writeWrapped(b *strings.Builder, s []byte) {
	for len(s) > 60 {
		b.Write(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.Write(s)
	b.WriteByte('\n')
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s)) // a bytes.Buffer does not fail
	_ = w.Close()
	return b.Bytes()
}

// ensureSamples puts the sample inputs in the bucket, replacing what an
// older stack put there under the same keys.
func ensureSamples(ctx context.Context, info MinIOInfo, host string) error {
	mc, err := minio.New(host, &minio.Options{Creds: credentials.NewStaticV4(info.AccessKey, info.SecretKey, ""),
		Region: region, BucketLookup: minio.BucketLookupPath})
	if err != nil {
		return err
	}
	db, queries := SampleInputs()
	for key, body := range map[string][]byte{SampleDatabaseKey: db, SampleQueriesKey: queries} {
		if _, err := mc.PutObject(ctx, info.Bucket, key, bytes.NewReader(body), int64(len(body)),
			minio.PutObjectOptions{ContentType: "application/gzip"}); err != nil {
			return fmt.Errorf("sample input s3://%s/%s: %w", info.Bucket, key, err)
		}
	}
	return nil
}
