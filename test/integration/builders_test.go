package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// The builders below write objects the way a user writes YAML for kubectl:
// a field the spec does not mention is absent, so the API server's
// defaults apply. (A typed Go object cannot say that: encoding/json never
// omits a struct-valued field, so partitions, chunking and retryPolicy
// would reach the server as zero values.)

const namespace = "default"

// spec is an object under construction.
type spec struct{ u *unstructured.Unstructured }

// set sets a field given by a dotted path below the object's root, for
// example "spec.partitions.count". Numbers must be int64.
func (s spec) set(path string, v any) {
	if err := unstructured.SetNestedField(s.u.Object, v, strings.Split(path, ".")...); err != nil {
		panic(fmt.Sprintf("set %s: %v", path, err))
	}
}

// unset removes a field given by a dotted path.
func (s spec) unset(path string) {
	unstructured.RemoveNestedField(s.u.Object, strings.Split(path, ".")...)
}

func (s spec) appendOption(o map[string]any) {
	opts, _, _ := unstructured.NestedSlice(s.u.Object, "spec", "blastOptions")
	s.set("spec.blastOptions", append(opts, o))
}

func newObject(kind, name string) spec {
	return spec{&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "blastfleet.io/v1alpha1",
		"kind":       kind,
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       map[string]any{},
	}}}
}

func minioOutput(prefix string) map[string]any {
	return map[string]any{
		"endpoint":             "http://minio.minio.svc:9000",
		"bucket":               "blastfleet",
		"prefix":               prefix,
		"credentialsSecretRef": map[string]any{"name": "minio-credentials"},
	}
}

// campaignBuilder builds a SearchCampaign. campaign(name) alone is the
// smallest valid campaign: blastp of queries/human.fa against the database
// sprot, output to MinIO; everything else is left to the defaults.
type campaignBuilder struct{ spec }

func campaign(name string) *campaignBuilder {
	b := &campaignBuilder{newObject("SearchCampaign", name)}
	b.set("spec.databaseRef", map[string]any{"name": "sprot"})
	b.set("spec.queries", map[string]any{"key": "queries/human.fa"})
	b.set("spec.program", "blastp")
	b.set("spec.output", minioOutput("campaigns"))
	return b
}

func (b *campaignBuilder) against(database string) *campaignBuilder {
	b.set("spec.databaseRef.name", database)
	return b
}

func (b *campaignBuilder) withProgram(p string) *campaignBuilder {
	b.set("spec.program", p)
	return b
}

// withPartitions sets the partition count and the workers per partition.
func (b *campaignBuilder) withPartitions(count, workers int64) *campaignBuilder {
	b.set("spec.partitions.count", count)
	b.set("spec.partitions.workers", workers)
	return b
}

// withDeadline sets spec.deadline: {time: ...} or {after: ...}.
func (b *campaignBuilder) withDeadline(d map[string]any) *campaignBuilder {
	b.set("spec.deadline", d)
	return b
}

// withBurst sets partitions.min and max, 0 leaving one out.
func (b *campaignBuilder) withBurst(min, max int64) *campaignBuilder {
	if min != 0 {
		b.set("spec.partitions.min", min)
	}
	if max != 0 {
		b.set("spec.partitions.max", max)
	}
	return b
}

func (b *campaignBuilder) withMin(n int64) *campaignBuilder {
	b.set("spec.partitions.min", n)
	return b
}

func (b *campaignBuilder) withSlotsPerWorker(n int64) *campaignBuilder {
	b.set("spec.partitions.slotsPerWorker", n)
	return b
}

// withResources sets spec.partitions.resources (nil: leave out).
func (b *campaignBuilder) withResources(requests, limits map[string]any) *campaignBuilder {
	r := map[string]any{}
	if requests != nil {
		r["requests"] = requests
	}
	if limits != nil {
		r["limits"] = limits
	}
	b.set("spec.partitions.resources", r)
	return b
}

// withOption adds a BLAST option with a value.
func (b *campaignBuilder) withOption(name, value string) *campaignBuilder {
	b.appendOption(map[string]any{"name": name, "value": value})
	return b
}

// withFlag adds a BLAST option without a value.
func (b *campaignBuilder) withFlag(name string) *campaignBuilder {
	b.appendOption(map[string]any{"name": name})
	return b
}

func (b *campaignBuilder) withOutfmt(f string) *campaignBuilder {
	b.set("spec.outfmt", f)
	return b
}

func (b *campaignBuilder) withEvalue(e string) *campaignBuilder {
	b.set("spec.evalue", e)
	return b
}

func (b *campaignBuilder) withTopHits(h string) *campaignBuilder {
	b.set("spec.topHits", h)
	return b
}

// chunkedBy sets chunking as given: letters and queries per chunk, 0
// leaving one out (both 0: an empty chunking).
func (b *campaignBuilder) chunkedBy(letters, queries int64) *campaignBuilder {
	c := map[string]any{}
	if letters > 0 {
		c["letters"] = letters
	}
	if queries > 0 {
		c["queries"] = queries
	}
	b.set("spec.chunking", c)
	return b
}

func (b *campaignBuilder) withRestartBudget(n int64) *campaignBuilder {
	b.set("spec.retryPolicy.maxPartitionRestarts", n)
	return b
}

func (b *campaignBuilder) withQueue(q string) *campaignBuilder {
	b.set("spec.queueName", q)
	return b
}

func (b *campaignBuilder) withEndpoint(e string) *campaignBuilder {
	b.set("spec.output.endpoint", e)
	return b
}

// withoutEndpoint leaves the endpoint out: AWS S3.
func (b *campaignBuilder) withoutEndpoint() *campaignBuilder {
	b.unset("spec.output.endpoint")
	return b
}

func (b *campaignBuilder) withBucket(name string) *campaignBuilder {
	b.set("spec.output.bucket", name)
	return b
}

func (b *campaignBuilder) withQueriesBucket(name string) *campaignBuilder {
	b.set("spec.queries.bucket", name)
	return b
}

func (b *campaignBuilder) withQueriesKey(key string) *campaignBuilder {
	b.set("spec.queries.key", key)
	return b
}

func (b *campaignBuilder) withPrefix(p string) *campaignBuilder {
	b.set("spec.output.prefix", p)
	return b
}

// withSet sets any field by its dotted path.
func (b *campaignBuilder) withSet(path string, v any) *campaignBuilder {
	b.set(path, v)
	return b
}

func (b *campaignBuilder) withoutCredentials() *campaignBuilder {
	b.unset("spec.output.credentialsSecretRef")
	return b
}

func (b *campaignBuilder) object() client.Object { return b.u }

// databaseBuilder builds a BlastDatabase. database(name) alone is a valid
// protein database: sprot.fasta.gz cut into 4 shards in MinIO.
type databaseBuilder struct{ spec }

func database(name string) *databaseBuilder {
	b := &databaseBuilder{newObject("BlastDatabase", name)}
	b.set("spec.source", map[string]any{"key": "inputs/sprot.fasta.gz"})
	b.set("spec.type", "prot")
	b.set("spec.shards", map[string]any{"count": int64(4)})
	b.set("spec.storage", minioOutput("databases"))
	return b
}

func (b *databaseBuilder) ofType(t string) *databaseBuilder {
	b.set("spec.type", t)
	return b
}

// cutInto sets the shard count, replacing any target size.
func (b *databaseBuilder) cutInto(shards int64) *databaseBuilder {
	b.set("spec.shards", map[string]any{"count": shards})
	return b
}

// cutBySize sets the target shard size, replacing any count.
func (b *databaseBuilder) cutBySize(size string) *databaseBuilder {
	b.set("spec.shards", map[string]any{"targetSize": size})
	return b
}

// withSharding sets spec.shards as given.
func (b *databaseBuilder) withSharding(s map[string]any) *databaseBuilder {
	b.set("spec.shards", s)
	return b
}

func (b *databaseBuilder) withPrefix(p string) *databaseBuilder {
	b.set("spec.storage.prefix", p)
	return b
}

func (b *databaseBuilder) withEndpoint(e string) *databaseBuilder {
	b.set("spec.storage.endpoint", e)
	return b
}

func (b *databaseBuilder) withBucket(name string) *databaseBuilder {
	b.set("spec.storage.bucket", name)
	return b
}

func (b *databaseBuilder) withServiceAccount(name string) *databaseBuilder {
	b.set("spec.serviceAccountName", name)
	return b
}

func (b *databaseBuilder) withoutCredentials() *databaseBuilder {
	b.unset("spec.storage.credentialsSecretRef")
	return b
}

func (b *databaseBuilder) object() client.Object { return b.u }

// builder is what a table of specs holds.
type builder interface{ object() client.Object }

// nameOfLength is a valid DNS-1035 label of n characters.
func nameOfLength(n int) string {
	return "c" + strings.Repeat("x", n-1)
}

// workerPodName is the longest worker pod name of a campaign: the last
// worker of the last partition after the last allowed restart.
func workerPodName(name string, partitions, workers, restarts int) string {
	return fmt.Sprintf("%s-p%d-r%d-worker-%d", name, partitions-1, restarts, workers-1)
}

// mustCreate creates obj and fails the test if the API server refuses.
func mustCreate(ctx context.Context, t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("create %s: %v", obj.GetName(), err)
	}
}

// mustGetDatabase reads the database name, failing the test if it cannot.
func mustGetDatabase(ctx context.Context, t *testing.T, c client.Client, name string) *v1alpha1.BlastDatabase {
	t.Helper()
	var db v1alpha1.BlastDatabase
	if err := c.Get(ctx, key(name), &db); err != nil {
		t.Fatal(err)
	}
	return &db
}

// expectInvalid fails the test unless err is the API server's 422 Invalid
// carrying every one of want.
func expectInvalid(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("accepted; want rejected with %q", want)
		return
	}
	if !apierrors.IsInvalid(err) {
		t.Errorf("err = %v; want an Invalid error with %q", err, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not contain %q:\n%v", w, err)
		}
	}
}

// withReplica adds a replica named name in the given bucket of the same
// MinIO as the storage, under prefix.
func (b *databaseBuilder) withReplica(name, bucket, prefix string) *databaseBuilder {
	st := minioOutput(prefix)
	st["bucket"] = bucket
	return b.withReplicaStorage(name, st)
}

// withReplicaStorage adds a replica with the storage given.
func (b *databaseBuilder) withReplicaStorage(name string, storage map[string]any) *databaseBuilder {
	rs, _, _ := unstructured.NestedSlice(b.u.Object, "spec", "replicas")
	b.set("spec.replicas", append(rs, map[string]any{"name": name, "storage": storage}))
	return b
}
