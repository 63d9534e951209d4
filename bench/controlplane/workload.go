package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// The bench's campaigns: each searches queriesPerCampaign queries in
// chunks of two, over 8 partitions of 2 workers.
const (
	namespace          = "bench"
	secretName         = "minio-credentials"
	databaseName       = "sprot"
	queriesPerCampaign = 32
	chunkQueries       = 2
	// dbBytes sizes the partitions' pods: small, so thousands fit.
	dbBytes = 3000
)

// workload creates what users would: the namespace, the store's
// credentials, a Ready database and the campaigns.
type workload struct {
	c          client.Client
	store      *minioServer
	campaigns  int
	partitions int32
}

func (w *workload) output(prefix string) v1alpha1.ObjectStorage {
	return v1alpha1.ObjectStorage{Endpoint: w.store.endpoint(), Region: "us-east-1", Bucket: bucket, Prefix: prefix,
		CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: secretName, AccessKeyIDKey: "AWS_ACCESS_KEY_ID", SecretAccessKeyKey: "AWS_SECRET_ACCESS_KEY"}}
}

func campaignName(i int) string { return fmt.Sprintf("c%05d", i) }

// prepare creates the namespace, the credentials and the database, and
// marks the database Ready as its Jobs would once they had built it (the
// bench is about campaigns).
func (w *workload) prepare(ctx context.Context) error {
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: mpiOperatorNamespace}},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: namespace, Labels: map[string]string{v1alpha1.CredentialsLabel: "true"}},
			Data:       map[string][]byte{"AWS_ACCESS_KEY_ID": []byte(w.store.accessKey), "AWS_SECRET_ACCESS_KEY": []byte(w.store.secretKey)},
		},
	} {
		if err := w.c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
		}
	}
	db := &v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: databaseName, Namespace: namespace},
		Spec: v1alpha1.BlastDatabaseSpec{
			Source: v1alpha1.ObjectReference{Key: "fasta/" + databaseName + ".fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)}, Storage: w.output("databases"),
		},
	}
	if err := w.c.Create(ctx, db); err != nil {
		return fmt.Errorf("creating BlastDatabase: %w", err)
	}
	// The operator may write the status first (it finds no source); Ready
	// at the current generation makes it leave the database alone.
	deadline := time.Now().Add(time.Minute)
	for {
		err := w.c.Get(ctx, client.ObjectKeyFromObject(db), db)
		if err == nil {
			db.Status = v1alpha1.BlastDatabaseStatus{Phase: v1alpha1.DatabaseReady, Shards: 2, Sequences: 10, Letters: 1000,
				Bytes: dbBytes, LargestShardBytes: dbBytes / 2, ObservedGeneration: db.Generation, Location: databaseLocation()}
			if err = w.c.Status().Update(ctx, db); err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("marking the database Ready: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func databaseLocation() string {
	return fmt.Sprintf("s3://%s/databases/%s/%s", bucket, namespace, databaseName)
}

// putQueries uploads every campaign's queries file.
func (w *workload) putQueries(ctx context.Context) error {
	st, err := w.store.store("")
	if err != nil {
		return err
	}
	var b strings.Builder
	for q := range queriesPerCampaign {
		fmt.Fprintf(&b, ">q%d\nMKVLAAGIVALLLAAGCSS\n", q)
	}
	data := b.String()
	return parallel(w.campaigns, 16, func(i int) error {
		key := "queries/" + campaignName(i) + ".fa"
		if err := st.Put(ctx, key, strings.NewReader(data), int64(len(data))); err != nil {
			return fmt.Errorf("uploading %s: %w", key, err)
		}
		return nil
	})
}

func (w *workload) campaign(i int) *v1alpha1.SearchCampaign {
	name := campaignName(i)
	return &v1alpha1.SearchCampaign{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: v1alpha1.SearchCampaignSpec{
			DatabaseRef:    v1alpha1.DatabaseReference{Name: databaseName},
			Queries:        v1alpha1.Queries{ObjectReference: v1alpha1.ObjectReference{Key: "queries/" + name + ".fa"}, Format: "fasta"},
			Program:        "blastp",
			Outfmt:         "6",
			MaxTargetSeqs:  500,
			TopHits:        "auto",
			Chunking:       v1alpha1.Chunking{Queries: ptr.To[int32](chunkQueries)},
			Partitions:     v1alpha1.Partitions{Count: w.partitions, Workers: 2, SlotsPerWorker: 1},
			OutputStrategy: "worker-merge",
			Output:         w.output("campaigns"),
			RetryPolicy:    v1alpha1.RetryPolicy{MaxAttempts: 3, LeaseSeconds: 60, MaxPartitionRestarts: 3, BackoffSeconds: 0, MaxBackoffSeconds: 1},
		},
	}
}

// apply creates every campaign, several at a time, as a user's script
// applying a directory of them would.
func (w *workload) apply(ctx context.Context) error {
	return parallel(w.campaigns, 8, func(i int) error {
		c := w.campaign(i)
		return retry(ctx, "creating campaign "+c.Name, func() error {
			err := w.c.Create(ctx, c)
			if apierrors.IsAlreadyExists(err) {
				return nil // created before a failed answer (the API server restarting)
			}
			return err
		})
	})
}

// plan is what the planning Job writes for campaign name: the bench's
// queries in chunks of chunkQueries.
func plan(name string) *ledger.Plan {
	return &ledger.Plan{
		Name:     name,
		Queries:  ledger.Queries{Location: fmt.Sprintf("s3://%s/queries/%s.fa", bucket, name), Count: queriesPerCampaign},
		Database: ledger.Database{Location: databaseLocation(), Name: databaseName, Type: "prot"},
		Search:   search.MustParse(search.Request{Program: "blastp", Outfmt: "6", MaxTargetSeqs: 500, TopHits: "auto"}),
		Chunks:   ledger.ChunkByQueries(queriesPerCampaign, chunkQueries),
		Policy:   ledger.Policy{MaxAttempts: 3, LeaseSeconds: 60, RenewSeconds: 12, SkewSeconds: 2},
	}
}

// campaignStore is a campaign's location in the store.
func (w *workload) campaignStore(name string) (objstore.Store, error) {
	return w.store.store("campaigns/" + namespace + "/" + name)
}

// parallel runs f(0..n-1) on k goroutines and returns the first error.
func parallel(n, k int, f func(int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// retry runs f until it succeeds or a minute passes: the API server the
// bench restarts refuses requests for a while.
func retry(ctx context.Context, what string, f func() error) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := f()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
