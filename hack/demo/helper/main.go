// Command helper does the steps of hack/demo.sh that need Go: uploading
// the demo's inputs to the local stack's MinIO, finding when the
// campaign's first BLAST task started (its ledger), and comparing the
// merged result with a direct BLAST run (test/support/refsearch's logic, as
// the tests do).
//
//	helper put STACK_DIR FILE KEY
//	helper first-task STACK_DIR s3://BUCKET/PREFIX SINCE_UNIX_NANOS
//	helper compare RESULT DIRECT
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/refsearch"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 5 && os.Args[1] == "put":
		err = put(os.Args[2], os.Args[3], os.Args[4])
	case len(os.Args) == 5 && os.Args[1] == "first-task":
		err = firstTask(os.Args[2], os.Args[3], os.Args[4])
	case len(os.Args) == 4 && os.Args[1] == "compare":
		err = compare(os.Args[2], os.Args[3])
	default:
		err = errors.New("usage: helper put STACK_DIR FILE KEY | first-task STACK_DIR LOCATION SINCE_UNIX_NANOS | compare RESULT DIRECT")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo helper:", err)
		os.Exit(1)
	}
}

func put(dir, file, key string) error {
	st, err := devstack.ReadState(dir)
	if err != nil {
		return err
	}
	store, err := st.Store("")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := objstore.PutFile(ctx, store, key, file); err != nil {
		return fmt.Errorf("uploading %s to s3://%s/%s: %w", file, st.MinIO.Bucket, key, err)
	}
	return nil
}

// firstTask prints the seconds from since to the first chunk attempt
// (a partition's master leasing a chunk for BLAST) in the ledger.
func firstTask(dir, location, since string) error {
	ns, err := strconv.ParseInt(since, 10, 64)
	if err != nil {
		return fmt.Errorf("since: %w", err)
	}
	st, err := devstack.ReadState(dir)
	if err != nil {
		return err
	}
	prefix, ok := strings.CutPrefix(location, "s3://"+st.MinIO.Bucket+"/")
	if !ok {
		return fmt.Errorf("%s is not in the stack's bucket %s", location, st.MinIO.Bucket)
	}
	store, err := st.Store(prefix)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := ledger.Open(ctx, store, ledger.Options{})
	if err != nil {
		return err
	}
	chunks, err := l.History(ctx)
	if err != nil {
		return err
	}
	var first time.Time
	for _, c := range chunks {
		for _, a := range c.Attempts {
			if first.IsZero() || a.StartedAt.Before(first) {
				first = a.StartedAt
			}
		}
	}
	if first.IsZero() {
		return errors.New("no chunk was ever leased")
	}
	fmt.Printf("%.1f\n", first.Sub(time.Unix(0, ns)).Seconds())
	return nil
}

// compare prints whether the merged result equals the direct run, for
// "-outfmt 6 std" (qseqid, sseqid and evalue in columns 0, 1 and 10).
func compare(result, direct string) error {
	got, err := os.ReadFile(result)
	if err != nil {
		return err
	}
	want, err := os.ReadFile(direct)
	if err != nil {
		return err
	}
	fmt.Printf("merged result:       %s (%d hits)\n", result, bytes.Count(got, []byte("\n")))
	fmt.Printf("direct blastp:       %s (%d hits)\n", direct, bytes.Count(want, []byte("\n")))
	switch {
	case bytes.Equal(got, want):
		fmt.Println("identical:           yes (byte for byte)")
	case refsearch.SameUpToTies(got, want, 0, 1, 10) == "":
		fmt.Println("identical:           no, same hits and values; subjects with equal printed E-values in another order (docs/concepts.md)")
	default:
		fmt.Printf("identical:           no: %s\n", refsearch.Diff(got, want))
	}
	return nil
}
