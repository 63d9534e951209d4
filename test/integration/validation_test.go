package integration

import (
	"context"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/test/support/kubetest"
)

func ptr[T any](v T) *T { return &v }

// tooLong is the message of the rule on the worker pods' names.
const tooLong = "worker pods are named <name>-p<partition>-r<restart>-worker-<index>, which must fit in 63 characters"

func key(name string) client.ObjectKey { return client.ObjectKey{Namespace: namespace, Name: name} }

// TestDefaults creates the smallest valid database and campaign and checks
// what the API server filled in.
func TestDefaults(t *testing.T) {
	env := kubetest.Start(t)
	ctx, c := context.Background(), env.Client

	mustCreate(ctx, t, c, database("sprot").object())
	var db v1alpha1.BlastDatabase
	if err := c.Get(ctx, key("sprot"), &db); err != nil {
		t.Fatal(err)
	}
	wantStorage := v1alpha1.ObjectStorage{
		Endpoint: "http://minio.minio.svc:9000",
		Region:   "us-east-1",
		Bucket:   "blastfleet",
		Prefix:   "databases",
		CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{
			Name:               "minio-credentials",
			AccessKeyIDKey:     "AWS_ACCESS_KEY_ID",
			SecretAccessKeyKey: "AWS_SECRET_ACCESS_KEY",
		},
	}
	if !reflect.DeepEqual(db.Spec.Storage, wantStorage) {
		t.Errorf("database storage = %+v (secret %+v)\nwant %+v (secret %+v)",
			db.Spec.Storage, db.Spec.Storage.CredentialsSecretRef, wantStorage, wantStorage.CredentialsSecretRef)
	}
	if db.Spec.Parallelism != nil || db.Spec.Image != "" {
		t.Errorf("database parallelism %v, image %q: want no default (the operator decides)", db.Spec.Parallelism, db.Spec.Image)
	}

	mustCreate(ctx, t, c, campaign("human-vs-sprot").object())
	var sc v1alpha1.SearchCampaign
	if err := c.Get(ctx, key("human-vs-sprot"), &sc); err != nil {
		t.Fatal(err)
	}
	s := sc.Spec
	for _, f := range []struct {
		field     string
		got, want any
	}{
		{"outfmt", s.Outfmt, "6"},
		{"maxTargetSeqs", s.MaxTargetSeqs, int32(500)},
		{"topHits", s.TopHits, "auto"},
		{"evalue", s.Evalue, ""},
		{"chunking", s.Chunking, v1alpha1.Chunking{Letters: ptr(int64(1000000))}},
		{"partitions.count", s.Partitions.Count, int32(1)},
		{"partitions.workers", s.Partitions.Workers, int32(2)},
		{"partitions.slotsPerWorker", s.Partitions.SlotsPerWorker, int32(1)},
		{"outputStrategy", s.OutputStrategy, v1alpha1.OutputStrategy("worker-merge")},
		{"retryPolicy", s.RetryPolicy, v1alpha1.RetryPolicy{MaxAttempts: 3, MaxAbandonedAttempts: 10, LeaseSeconds: 300, ClockSkewSeconds: 30, MaxPartitionRestarts: 10, BackoffSeconds: 10, MaxBackoffSeconds: 600}},
		{"queries.format", s.Queries.Format, "fasta"},
		{"output.region", s.Output.Region, "us-east-1"},
		{"output.credentialsSecretRef", *s.Output.CredentialsSecretRef, *wantStorage.CredentialsSecretRef},
		{"suspend", s.Suspend, false},
		{"queueName", s.QueueName, ""},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("campaign %s = %+v, want %+v", f.field, f.got, f.want)
		}
	}

	// A partly written object gets the defaults of the fields it leaves out.
	partial := campaign("partial").withRestartBudget(2)
	partial.set("spec.partitions", map[string]any{"count": int64(3)})
	mustCreate(ctx, t, c, partial.object())
	if err := c.Get(ctx, key("partial"), &sc); err != nil {
		t.Fatal(err)
	}
	if p := sc.Spec.Partitions; p.Count != 3 || p.Workers != 2 || p.SlotsPerWorker != 1 {
		t.Errorf("partitions {count: 3} became %+v, want count 3, workers 2, slotsPerWorker 1", p)
	}
	if r, want := sc.Spec.RetryPolicy, (v1alpha1.RetryPolicy{MaxAttempts: 3, MaxAbandonedAttempts: 10, LeaseSeconds: 300, ClockSkewSeconds: 30, MaxPartitionRestarts: 2, BackoffSeconds: 10, MaxBackoffSeconds: 600}); r != want {
		t.Errorf("retryPolicy {maxPartitionRestarts: 2} became %+v, want %+v", r, want)
	}
}

// TestSpecValidation creates valid edge cases, which must be accepted, and
// invalid specs, each of which must be rejected naming its field and
// reason.
func TestSpecValidation(t *testing.T) {
	env := kubetest.Start(t)
	ctx, c := context.Background(), env.Client

	// Names at the worker pod name's limit: 63 characters with the
	// defaults (1 partition, 2 workers, 10 restarts).
	at63 := nameOfLength(63 - len(workerPodName("", 1, 2, 10)))

	accepted := []struct {
		name string
		spec builder
	}{
		{"every flag", campaign("flags").withFlag("ungapped").withFlag("lcase_masking").withFlag("use_sw_tback").withFlag("no_greedy")},
		{"valued options", campaign("valued").withOption("word_size", "3").withOption("matrix", "BLOSUM62").withOption("comp_based_stats", "2")},
		{"an option value with inner spaces (dust level window linker)", campaign("dust").withProgram("blastn").withOption("dust", "20 64 1")},
		{"one worker with two slots", campaign("one-worker").withPartitions(1, 1).withSlotsPerWorker(2)},
		// The master is a rank beyond the slots: one slot is a partition.
		{"one worker of one slot", campaign("one-slot").withPartitions(1, 1).withSlotsPerWorker(1)},
		{"resources: requests up to the limits", campaign("sized").withResources(
			map[string]any{"cpu": "2", "memory": "4Gi", "ephemeral-storage": "20Gi"}, map[string]any{"cpu": "2", "memory": "4096Mi"})},
		{"resources: requests alone, memory in bytes", campaign("sized-bytes").withResources(map[string]any{"cpu": int64(1), "memory": int64(3 << 30)}, nil)},
		{"resources: a memory limit alone", campaign("sized-limit").withResources(nil, map[string]any{"memory": "8Gi"})},
		{"outfmt with columns", campaign("columns").withOutfmt("6 std qlen slen  qcovhsp")},
		{"outfmt 17 (SAM) for blastn", campaign("sam").withProgram("blastn").withOutfmt("17")},
		{"evalue forms", campaign("evalue").withEvalue("1.5E-10")},
		{"evalue without leading digit", campaign("evalue-dot").withEvalue(".001")},
		{"topHits overfetch=8", campaign("overfetch").withTopHits("overfetch=8")},
		{"topHits overfetch", campaign("overfetch-default").withTopHits("overfetch")},
		{"chunking by queries", campaign("by-queries").chunkedBy(0, 100)},
		{"a name at the length limit", campaign(at63)},
		{"HTTPS endpoint with port and slash", campaign("https").withEndpoint("https://s3.example.org:443/")},
		{"a key with dots in names", campaign("key-dots").withQueriesKey("inputs/v1.2/q..fa.gz")},
		{"a prefix ending in a slash", campaign("prefix-slash").withPrefix("campaigns/2026/")},
		{"IPv6 endpoint", campaign("ipv6").withEndpoint("http://[fd00::1]:9000")},
		{"bucket with dots", campaign("dots").withBucket("my.results-2024")},
		{"no endpoint: AWS S3", campaign("aws").withoutEndpoint()},
		{"queue name", campaign("queued").withQueue("team-a")},
		{"a taxid list object", campaign("taxid-list").withSet("spec.taxidList", map[string]any{"key": "campaigns/default/taxid-list/lists/taxa.txt", "negative": true}).withOption("word_size", "3")},
		{"a sequence id list object", campaign("seqid-list").withSet("spec.seqidList", map[string]any{"bucket": "lists", "key": "ids.txt", "negative": true}).withOutfmt("6 qseqid sseqid evalue")},
		{"deadline after a duration", campaign("burst-after").withDeadline(map[string]any{"after": "6h30m"}).withBurst(0, 8)},
		{"deadline at a time", campaign("burst-time").withDeadline(map[string]any{"time": "2026-11-26T13:00:00Z"}).withBurst(2, 4)},
		{"min and max without a deadline", campaign("burst-none").withBurst(3, 3)},
		{"database by target size", database("by-size").cutBySize("1Gi")},
		{"nucleotide database", database("nt").ofType("nucl").cutInto(64)},
		{"no credentials Secret: the pods' identity", campaign("no-secret").withoutCredentials().withSet("spec.partitions.serviceAccountName", "blast-irsa")},
		{"database without credentials, on a service account", database("no-secret").withoutCredentials().withServiceAccount("db-irsa")},
		{"queries in a public bucket behind a private CA", campaign("public-q").withSet("spec.queries.storage", map[string]any{
			"endpoint": "https://s3.example.org", "bucket": "public", "prefix": "sets", "anonymous": true,
			"caBundle": map[string]any{"name": "corp-ca"}})},
		// replicas
		{"one replica in another bucket", database("r-bucket").withReplica("east", "blastfleet-east", "databases")},
		{"a replica under another prefix of the same bucket", database("r-prefix").withReplica("copy", "blastfleet", "replicas")},
		{"a replica on another endpoint, same bucket and prefix", database("r-endpoint").withReplicaStorage("far", map[string]any{
			"endpoint": "https://s3.eu-west-1.amazonaws.com", "region": "eu-west-1", "bucket": "blastfleet", "prefix": "databases",
			"credentialsSecretRef": map[string]any{"name": "aws-credentials"}})},
		{"four replicas", database("r-four").withReplica("a", "bucket-a", "dbs").withReplica("b", "bucket-b", "dbs").
			withReplica("c", "bucket-c", "dbs").withReplica("d", "bucket-d", "dbs")},
		{"a replica on the pods' identity", database("r-identity").withReplicaStorage("irsa", map[string]any{"bucket": "dbs-replica"})},
		// the whole-database programs, in tabular output
		{"rpsblast", campaign("rps").withProgram("rpsblast").withOutfmt("6 std qlen")},
		{"rpstblastn, comma-separated", campaign("rpstn").withProgram("rpstblastn").withOutfmt("10")},
		{"psiblast iterating", campaign("psi").withProgram("psiblast").withOption("num_iterations", "3")},
	}
	for _, tc := range accepted {
		t.Run("accepts/"+tc.name, func(t *testing.T) {
			obj := tc.spec.object()
			if obj.GetName() == at63 {
				if n := len(workerPodName(at63, 1, 2, 10)); n != 63 {
					t.Fatalf("test premise: worker pod name has %d characters, want 63", n)
				}
			}
			if err := c.Create(ctx, obj); err != nil {
				t.Errorf("rejected: %v", err)
			}
		})
	}

	// Names one character over the worker pod name's limit, by each of the
	// four parts of the name.
	overBy := func(partitions, workers, restarts int) string {
		return nameOfLength(64 - len(workerPodName("", partitions, workers, restarts)))
	}
	longName := overBy(1, 2, 10)
	manyWorkers := overBy(1, 1001, 10)
	manyPartitions := overBy(101, 2, 10)
	manyRestarts := overBy(1, 2, 100)
	for _, n := range []struct {
		name                         string
		partitions, workers, restart int
	}{{longName, 1, 2, 10}, {manyWorkers, 1, 1001, 10}, {manyPartitions, 101, 2, 10}, {manyRestarts, 1, 2, 100}} {
		if l := len(workerPodName(n.name, n.partitions, n.workers, n.restart)); l != 64 {
			t.Fatalf("test premise: worker pod name of %s has %d characters, want 64", n.name, l)
		}
	}

	const replicaSame = "a replica must be at a location other than spec.storage"
	rejected := []struct {
		name string
		spec builder
		want []string
	}{
		// program and BLAST options
		{"a taxid list object beside taxids", campaign("list-and-taxids").withSet("spec.taxidList", map[string]any{"key": "lists/t.txt"}).withOption("negative_taxids", "9606"),
			[]string{"spec.taxidList", "taxidList and the taxids or negative_taxids blast option exclude each other"}},
		{"a taxid list object without a key", campaign("list-no-key").withSet("spec.taxidList", map[string]any{"negative": true}),
			[]string{"spec.taxidList.key", "Required value"}},
		{"a sequence id list beside a taxid list", campaign("seqids-and-taxa").withSet("spec.seqidList", map[string]any{"key": "ids.txt"}).withSet("spec.taxidList", map[string]any{"key": "t.txt"}),
			[]string{"spec.seqidList", "seqidList and taxidList exclude each other"}},
		{"a sequence id list beside taxids", campaign("seqids-and-taxids").withSet("spec.seqidList", map[string]any{"key": "ids.txt"}).withOption("taxids", "9606"),
			[]string{"spec.seqidList", "seqidList and the taxids or negative_taxids blast option exclude each other"}},
		{"a sequence id list with psiblast", campaign("seqids-psiblast").withProgram("psiblast").withSet("spec.seqidList", map[string]any{"key": "ids.txt"}),
			[]string{"spec.seqidList", "seqidList with psiblast, rpsblast or rpstblastn is not supported yet"}},
		{"a sequence id list with a report", campaign("seqids-report").withOutfmt("5").withSet("spec.seqidList", map[string]any{"key": "ids.txt"}),
			[]string{"spec.seqidList", "seqidList needs tabular output"}},
		{"a sequence id list with metadata transfer", campaign("seqids-metadata").withSet("spec.transfer", "metadata").withSet("spec.seqidList", map[string]any{"key": "ids.txt"}),
			[]string{"spec.seqidList", "seqidList needs tabular output"}},
		{"option gilist", campaign("opt-gilist").withOption("gilist", "gis.txt"),
			[]string{"spec.blastOptions[0].name", `Unsupported value: "gilist"`}},
		{"unknown program", campaign("bad-program").withProgram("blastz"),
			[]string{"spec.program", `Unsupported value: "blastz"`}},
		{"option db", campaign("opt-db").withOption("db", "nr"),
			[]string{"spec.blastOptions[0].name", `Unsupported value: "db"`}},
		{"option outfmt", campaign("opt-outfmt").withOption("outfmt", "5"),
			[]string{"spec.blastOptions[0].name", `Unsupported value: "outfmt"`}},
		{"option max_target_seqs", campaign("opt-mts").withOption("word_size", "3").withOption("max_target_seqs", "10"),
			[]string{"spec.blastOptions[1].name", `Unsupported value: "max_target_seqs"`}},
		{"option with its dash", campaign("opt-dash").withOption("-word_size", "3"),
			[]string{"spec.blastOptions[0].name", `Unsupported value: "-word_size"`}},
		{"flag with a value", campaign("flag-value").withOption("ungapped", "true"),
			[]string{"spec.blastOptions[0]", "-ungapped is a flag and takes no value"}},
		{"valued option without a value", campaign("no-value").withFlag("word_size"),
			[]string{"spec.blastOptions[0]", "-word_size needs a value"}},
		{"value with a newline", campaign("newline").withOption("matrix", "BLOSUM62\n-out"),
			[]string{"spec.blastOptions[0].value", "should match"}},
		{"value with a leading space", campaign("lead-space").withOption("matrix", " BLOSUM62"),
			[]string{"spec.blastOptions[0].value", "should match"}},
		{"num_threads (a campaign's threads are its slots)", campaign("threads").withSlotsPerWorker(4).withOption("num_threads", "4"),
			[]string{"spec.blastOptions[0].name", `Unsupported value: "num_threads"`}},
		{"num_iterations for blastp", campaign("blastp-iter").withOption("num_iterations", "3"),
			[]string{"spec.blastOptions", "-num_iterations is an option of psiblast only"}},
		{"num_iterations not a number", campaign("psi-iter").withProgram("psiblast").withOption("num_iterations", "all"),
			[]string{"spec.blastOptions[0]", "-num_iterations does not take all"}},
		{"psiblast pairwise report", campaign("psi-report").withProgram("psiblast").withOutfmt("0"),
			[]string{"spec.outfmt", "psiblast, rpsblast and rpstblastn write tabular output only"}},
		{"rpsblast with comments (7 is regenerated)", campaign("rps-7").withProgram("rpsblast").withOutfmt("7 std"),
			[]string{"spec.outfmt", "tabular output only: outfmt 6 or 10"}},
		{"rpstblastn, metadata transfer", campaign("rpstn-meta").withProgram("rpstblastn").withSet("spec.transfer", "metadata"),
			[]string{"spec.transfer", "transfer metadata regenerates it"}},

		// partitions and names
		{"zero partitions", campaign("zero").withPartitions(0, 2),
			[]string{"spec.partitions.count", "should be greater than or equal to 1"}},
		{"zero workers", campaign("zero-workers").withPartitions(1, 0),
			[]string{"spec.partitions.workers", "should be greater than or equal to 1"}},
		{"zero slots", campaign("zero-slots").withSlotsPerWorker(0),
			[]string{"spec.partitions.slotsPerWorker", "should be greater than or equal to 1"}},
		{"resources: cpu request above its limit", campaign("cpu-over").withResources(map[string]any{"cpu": "4"}, map[string]any{"cpu": "2"}),
			[]string{"spec.partitions.resources.requests", "partitions.resources.requests.cpu must not be above partitions.resources.limits.cpu"}},
		{"resources: memory request above its limit", campaign("mem-over").withResources(map[string]any{"memory": "8Gi"}, map[string]any{"memory": "4096Mi"}),
			[]string{"spec.partitions.resources.requests", "partitions.resources.requests.memory must not be above partitions.resources.limits.memory"}},
		{"resources: not a quantity", campaign("mem-word").withResources(map[string]any{"memory": "lots"}, nil),
			[]string{"spec.partitions.resources.requests.memory"}},
		{"name too long", campaign(longName), []string{tooLong}},
		{"too many workers for the name", campaign(manyWorkers).withPartitions(1, 1001), []string{tooLong}},
		{"too many partitions for the name", campaign(manyPartitions).withPartitions(101, 2), []string{tooLong}},
		{"too many restarts for the name", campaign(manyRestarts).withRestartBudget(100), []string{tooLong}},
		{"too high a partitions.max for the name", campaign(manyPartitions).withBurst(0, 101), []string{tooLong}},

		// deadline and burst
		{"deadline without max", campaign("no-max").withDeadline(map[string]any{"after": "6h"}),
			[]string{"spec.deadline needs spec.partitions.max"}},
		{"deadline time and after", campaign("both-deadlines").withDeadline(map[string]any{"after": "6h", "time": "2026-11-26T13:00:00Z"}).withBurst(0, 4),
			[]string{"spec.deadline", "set exactly one of deadline.time and deadline.after"}},
		{"empty deadline", campaign("empty-deadline").withDeadline(map[string]any{}).withBurst(0, 4),
			[]string{"spec.deadline", "set exactly one of deadline.time and deadline.after"}},
		{"deadline after zero", campaign("zero-after").withDeadline(map[string]any{"after": "0s"}).withBurst(0, 4),
			[]string{"spec.deadline.after", "deadline.after must be a positive duration"}},
		{"deadline after in words", campaign("words-after").withDeadline(map[string]any{"after": "6 hours"}).withBurst(0, 4),
			[]string{"spec.deadline.after", "should match"}},
		{"deadline time not RFC 3339", campaign("bad-time").withDeadline(map[string]any{"time": "tomorrow 13:00"}).withBurst(0, 4),
			[]string{"spec.deadline.time"}},
		{"min above max", campaign("min-max").withBurst(5, 4),
			[]string{"spec.partitions", "partitions.min must not be above partitions.max"}},
		{"max zero", campaign("max-zero").withBurst(0, 0).withDeadline(map[string]any{"after": "1h"}),
			[]string{"spec.deadline needs spec.partitions.max"}},
		{"min zero", campaign("min-zero").withPartitions(1, 2).withMin(0),
			[]string{"spec.partitions.min", "should be greater than or equal to 1"}},
		{"name starting with a digit", campaign("1st-campaign"),
			[]string{"metadata.name must be a DNS-1035 label"}},
		{"name with a dot", campaign("human.v2"),
			[]string{"metadata.name must be a DNS-1035 label"}},

		// search parameters
		{"outfmt 17 (SAM) for blastp", campaign("sam-blastp").withProgram("blastp").withOutfmt("17"),
			[]string{"spec.outfmt", "outfmt 17 (SAM) needs program blastn: BLAST+ prints SAM for blastn only"}},
		{"outfmt 17 (SAM) as metadata", campaign("sam-metadata").withProgram("blastn").withOutfmt("17").withSet("spec.transfer", "metadata"),
			[]string{"spec.outfmt", "outfmt 17 (SAM) needs transfer full"}},
		{"outfmt 18", campaign("fmt18").withOutfmt("18"),
			[]string{"spec.outfmt", "should match"}},
		{"outfmt 5 with columns", campaign("fmt5").withOutfmt("5 qseqid"),
			[]string{"spec.outfmt", "should match"}},
		{"outfmt unknown column", campaign("fmt-col").withOutfmt("6 qseqid sseqid identity"),
			[]string{"spec.outfmt", "should match"}},
		{"evalue not a number", campaign("evalue").withEvalue("small"),
			[]string{"spec.evalue", "should match"}},
		{"evalue negative", campaign("evalue-neg").withEvalue("-1"),
			[]string{"spec.evalue", "should match"}},
		{"evalue bad exponent", campaign("evalue-exp").withEvalue("1e"),
			[]string{"spec.evalue", "should match"}},
		{"topHits overfetch=0", campaign("overfetch-0").withTopHits("overfetch=0"),
			[]string{"spec.topHits", "should match"}},
		{"topHits fractional factor", campaign("overfetch-frac").withTopHits("overfetch=1.5"),
			[]string{"spec.topHits", "should match"}},
		{"topHits unknown", campaign("tophits").withTopHits("best"),
			[]string{"spec.topHits", "should match"}},
		{"chunking by letters and queries", campaign("both").chunkedBy(1000, 10),
			[]string{"spec.chunking", "set exactly one of letters and queries"}},
		{"chunking by neither", campaign("neither").chunkedBy(0, 0),
			[]string{"spec.chunking", "set exactly one of letters and queries"}},

		// object storage
		{"anonymous with a Secret", campaign("anon-secret").withSet("spec.output.anonymous", true),
			[]string{"spec.output.anonymous", "anonymous and credentialsSecretRef exclude each other"}},
		{"queries' own storage and queries.bucket", campaign("q-bucket").withSet("spec.queries.bucket", "other").
			withSet("spec.queries.storage", map[string]any{"bucket": "public", "anonymous": true}),
			[]string{"spec.queries.bucket", "leave queries.bucket unset"}},
		{"queries' storage without a bucket", campaign("q-nobucket").withSet("spec.queries.storage", map[string]any{"anonymous": true}),
			[]string{"spec.queries.storage.bucket", "Required value"}},
		{"caBundle key with a slash", campaign("ca-key").withSet("spec.output.caBundle", map[string]any{"name": "ca", "key": "../ca.crt"}),
			[]string{"spec.output.caBundle.key", "should match"}},
		{"service account name", campaign("sa-name").withSet("spec.partitions.serviceAccountName", "Admin"),
			[]string{"spec.partitions.serviceAccountName", "should match"}},
		{"endpoint without scheme", campaign("no-scheme").withEndpoint("minio.minio.svc:9000"),
			[]string{"spec.output.endpoint", "should match"}},
		{"endpoint with a path", campaign("ep-path").withEndpoint("http://minio:9000/bucket"),
			[]string{"spec.output.endpoint", "should match"}},
		{"endpoint with credentials", campaign("ep-user").withEndpoint("http://admin:secret@minio:9000"),
			[]string{"spec.output.endpoint", "should match"}},
		{"endpoint ftp", campaign("ep-ftp").withEndpoint("ftp://minio:21"),
			[]string{"spec.output.endpoint", "should match"}},
		{"endpoint without host", campaign("ep-nohost").withEndpoint("http://:9000"),
			[]string{"spec.output.endpoint", "should match"}},
		{"bucket upper case", campaign("bucket-case").withBucket("Results"),
			[]string{"spec.output.bucket", "should match"}},
		{"bucket underscore", campaign("bucket-us").withBucket("blast_results"),
			[]string{"spec.output.bucket", "should match"}},
		{"bucket double dot", campaign("bucket-dots").withBucket("blast..results"),
			[]string{"spec.output.bucket", "should match"}},
		{"bucket too short", campaign("bucket-short").withBucket("bf"),
			[]string{"spec.output.bucket", "at least 3 chars long"}},
		{"queries bucket", campaign("q-bucket").withQueriesBucket("-inputs"),
			[]string{"spec.queries.bucket", "should match"}},
		{"prefix with leading slash", campaign("slash").withPrefix("/campaigns"),
			[]string{"spec.output.prefix", "prefix must not start with '/'"}},
		// keys and prefixes the object stores refuse (objstore's checkKey)
		{"prefix with ..", campaign("prefix-dotdot").withPrefix("campaigns/../other"),
			[]string{"spec.output.prefix", "prefix must not have a '.' or '..' segment"}},
		{"prefix with an empty segment", campaign("prefix-empty").withPrefix("campaigns//x"),
			[]string{"spec.output.prefix", "prefix must not have an empty segment"}},
		{"key with ..", campaign("key-dotdot").withQueriesKey("inputs/../q.fa"),
			[]string{"spec.queries.key", "key must not have a '.' or '..' segment"}},
		{"key with .", campaign("key-dot").withQueriesKey("./q.fa"),
			[]string{"spec.queries.key", "key must not have a '.' or '..' segment"}},
		{"key with an empty segment", campaign("key-empty").withQueriesKey("inputs//q.fa"),
			[]string{"spec.queries.key", "key must not have an empty segment"}},
		{"key with a leading slash", campaign("key-slash").withQueriesKey("/inputs/q.fa"),
			[]string{"spec.queries.key", "key must not start or end with '/'"}},
		{"key ending in a slash", campaign("key-dir").withQueriesKey("inputs/"),
			[]string{"spec.queries.key", "key must not start or end with '/'"}},
		{"key with a backslash", campaign("key-bs").withQueriesKey(`inputs\q.fa`),
			[]string{"spec.queries.key", "should match"}},

		// databases
		{"database type", database("dna").ofType("dna"),
			[]string{"spec.type", `Unsupported value: "dna"`}},
		{"shards by count and size", database("both").withSharding(map[string]any{"count": int64(4), "targetSize": "1Gi"}),
			[]string{"spec.shards", "set exactly one of count and targetSize"}},
		{"shards by neither", database("neither").withSharding(map[string]any{}),
			[]string{"spec.shards", "set exactly one of count and targetSize"}},
		{"zero shards", database("zero").cutInto(0),
			[]string{"spec.shards.count", "should be greater than or equal to 1"}},
		{"target size 0", database("size-0").cutBySize("0"),
			[]string{"spec.shards.targetSize", "targetSize must be positive"}},
		{"negative target size", database("size-neg").cutBySize("-1Gi"),
			[]string{"spec.shards.targetSize", "targetSize must be positive"}},
		{"database prefix with leading slash", database("slash").withPrefix("/databases"),
			[]string{"spec.storage.prefix", "prefix must not start with '/'"}},
		{"database endpoint", database("endpoint").withEndpoint("s3.amazonaws.com"),
			[]string{"spec.storage.endpoint", "should match"}},
		{"database bucket", database("bucket").withBucket("Sprot_DB"),
			[]string{"spec.storage.bucket", "should match"}},
		// replicas: a replica is another place, named by a DNS label
		{"a replica identical to storage", database("r-same").withReplica("copy", "blastfleet", "databases"),
			[]string{"spec.replicas", replicaSame}},
		{"a replica differing by a trailing slash", database("r-slash").withReplicaStorage("copy", map[string]any{
			"endpoint": "http://minio.minio.svc:9000/", "bucket": "blastfleet", "prefix": "databases/"}),
			[]string{"spec.replicas", replicaSame}},
		{"a replica differing only in credentials", database("r-creds").withReplicaStorage("copy", map[string]any{
			"endpoint": "http://minio.minio.svc:9000", "bucket": "blastfleet", "prefix": "databases",
			"credentialsSecretRef": map[string]any{"name": "other-credentials"}}),
			[]string{"spec.replicas", replicaSame}},
		{"two replicas at one location", database("r-twice").withReplica("a", "blastfleet-east", "dbs").withReplica("b", "blastfleet-east", "dbs/"),
			[]string{"spec.replicas", "replicas must be at distinct locations"}},
		{"two replicas of one name", database("r-dup").withReplica("east", "bucket-a", "dbs").withReplica("east", "bucket-b", "dbs"),
			[]string{"spec.replicas[1]", "Duplicate value"}},
		{"a name that is no DNS label", database("r-label").withReplica("East_1", "bucket-a", "dbs"),
			[]string{"spec.replicas[0].name", "should match"}},
		{"a name too long for its Job's", database("r-long").withReplica(strings.Repeat("x", 33), "bucket-a", "dbs"),
			[]string{"spec.replicas[0].name", "Too long"}},
		{"an anonymous replica", database("r-anon").withReplicaStorage("public", map[string]any{"bucket": "public-dbs", "anonymous": true}),
			[]string{"spec.replicas[0].storage.anonymous", "a replica is written by its copy: it cannot be anonymous"}},
		{"five replicas", database("r-five").withReplica("a", "bucket-a", "dbs").withReplica("b", "bucket-b", "dbs").
			withReplica("c", "bucket-c", "dbs").withReplica("d", "bucket-d", "dbs").withReplica("e", "bucket-e", "dbs"),
			[]string{"spec.replicas", "must have at most 4 items"}},
		{"a replica's storage checked as any storage", database("r-bad-bucket").withReplica("east", "Bad_Bucket", "dbs"),
			[]string{"spec.replicas[0].storage.bucket"}},
		{"a replica's prefix checked as any prefix", database("r-bad-prefix").withReplica("east", "bucket-a", "/dbs"),
			[]string{"spec.replicas[0].storage.prefix", "prefix must not start with '/'"}},
	}
	for _, tc := range rejected {
		t.Run("rejects/"+tc.name, func(t *testing.T) {
			expectInvalid(t, c.Create(ctx, tc.spec.object()), tc.want...)
		})
	}
}

// TestCampaignImmutability changes each field of an existing campaign:
// the fields that decide the result are refused, naming the field; the
// partitions, suspend and the restart budget may change.
func TestCampaignImmutability(t *testing.T) {
	env := kubetest.Start(t)
	ctx, c := context.Background(), env.Client

	mustCreate(ctx, t, c, campaign("fixed").
		withPartitions(2, 4).withSlotsPerWorker(2).
		withEvalue("1e-5").withOption("word_size", "3").withOption("gapopen", "2").
		object())
	mustCreate(ctx, t, c, campaign("bare").object()) // no evalue, options or queue
	// edge's worker pod names are 63 characters long: one more digit in
	// any part of them is one too many.
	edge := nameOfLength(63 - len(workerPodName("", 1, 2, 10)))
	mustCreate(ctx, t, c, campaign(edge).object())

	update := func(name string, change func(*v1alpha1.SearchCampaign)) error {
		var sc v1alpha1.SearchCampaign
		if err := c.Get(ctx, key(name), &sc); err != nil {
			t.Fatal(err)
		}
		change(&sc)
		return c.Update(ctx, &sc)
	}

	refused := []struct {
		name     string
		campaign string
		change   func(*v1alpha1.SearchCampaign)
		want     []string
	}{
		{"program", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Program = "blastx" },
			[]string{"spec.program", "program is immutable"}},
		{"queries key", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Queries.Key = "queries/mouse.fa" },
			[]string{"spec.queries", "queries is immutable"}},
		{"queries bucket", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Queries.Bucket = "inputs" },
			[]string{"spec.queries", "queries is immutable"}},
		{"outfmt", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Outfmt = "6 qseqid sseqid evalue" },
			[]string{"spec.outfmt", "outfmt is immutable"}},
		{"maxTargetSeqs", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.MaxTargetSeqs = 10 },
			[]string{"spec.maxTargetSeqs", "maxTargetSeqs is immutable"}},
		{"topHits", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.TopHits = "exact" },
			[]string{"spec.topHits", "topHits is immutable"}},
		{"output bucket", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Output.Bucket = "elsewhere" },
			[]string{"spec.output", "output is immutable"}},
		{"output prefix", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Output.Prefix = "other" },
			[]string{"spec.output", "output is immutable"}},
		{"output credentials", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Output.CredentialsSecretRef.Name = "other" },
			[]string{"spec.output", "output is immutable"}},
		{"chunking letters", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Chunking.Letters = ptr(int64(5000)) },
			[]string{"spec.chunking", "chunking is immutable"}},
		{"chunking to queries", "fixed", func(sc *v1alpha1.SearchCampaign) {
			sc.Spec.Chunking = v1alpha1.Chunking{Queries: ptr(int32(100))}
		}, []string{"spec.chunking", "chunking is immutable"}},
		{"databaseRef", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.DatabaseRef.Name = "nr" },
			[]string{"spec.databaseRef", "databaseRef is immutable"}},
		{"evalue changed", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Evalue = "1e-3" },
			[]string{"spec.evalue", "evalue is immutable"}},
		{"evalue removed", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Evalue = "" },
			[]string{"spec.evalue", "evalue is immutable"}},
		{"evalue added", "bare", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Evalue = "1e-5" },
			[]string{"spec.evalue", "evalue is immutable"}},
		{"blastOptions value", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.BlastOptions[0].Value = "4" },
			[]string{"spec.blastOptions", "blastOptions is immutable"}},
		{"blastOptions removed", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.BlastOptions = nil },
			[]string{"spec.blastOptions", "blastOptions is immutable"}},
		{"blastOptions added", "bare", func(sc *v1alpha1.SearchCampaign) {
			sc.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "ungapped"}}
		}, []string{"spec.blastOptions", "blastOptions is immutable"}},
		{"retryPolicy.maxAttempts", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.RetryPolicy.MaxAttempts = 5 },
			[]string{"spec.retryPolicy.maxAttempts", "maxAttempts is immutable"}},
		{"retryPolicy.maxAbandonedAttempts", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.RetryPolicy.MaxAbandonedAttempts = 20 },
			[]string{"spec.retryPolicy.maxAbandonedAttempts", "maxAbandonedAttempts is immutable"}},
		{"retryPolicy.leaseSeconds", "fixed", func(sc *v1alpha1.SearchCampaign) { sc.Spec.RetryPolicy.LeaseSeconds = 60 },
			[]string{"spec.retryPolicy.leaseSeconds", "leaseSeconds is immutable"}},
		{"queueName added", "bare", func(sc *v1alpha1.SearchCampaign) { sc.Spec.QueueName = "team-a" },
			[]string{"spec.queueName", "queueName is immutable"}},
		{"taxidList added", "bare", func(sc *v1alpha1.SearchCampaign) {
			sc.Spec.TaxidList = &v1alpha1.TaxidList{ObjectReference: v1alpha1.ObjectReference{Key: "lists/t.txt"}}
		}, []string{"spec.taxidList", "taxidList is immutable"}},
		{"seqidList added", "bare", func(sc *v1alpha1.SearchCampaign) {
			sc.Spec.SeqidList = &v1alpha1.SeqidList{ObjectReference: v1alpha1.ObjectReference{Key: "lists/ids.txt"}}
		}, []string{"spec.seqidList", "seqidList is immutable"}},
		// Mutable fields still obey the rules that span fields.
		{"workers past the name limit", edge, func(sc *v1alpha1.SearchCampaign) { sc.Spec.Partitions.Workers = 11 },
			[]string{tooLong}},
		{"restart budget past the name limit", edge, func(sc *v1alpha1.SearchCampaign) { sc.Spec.RetryPolicy.MaxPartitionRestarts = 100 },
			[]string{tooLong}},
	}
	for _, tc := range refused {
		t.Run("refuses/"+tc.name, func(t *testing.T) {
			expectInvalid(t, update(tc.campaign, tc.change), tc.want...)
		})
	}

	accepted := []struct {
		name   string
		change func(*v1alpha1.SearchCampaign)
		check  func(v1alpha1.SearchCampaignSpec) bool
	}{
		{"partitions.count", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Partitions.Count = 5 },
			func(s v1alpha1.SearchCampaignSpec) bool { return s.Partitions.Count == 5 }},
		{"partitions.workers", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Partitions.Workers = 8 },
			func(s v1alpha1.SearchCampaignSpec) bool { return s.Partitions.Workers == 8 }},
		{"suspend", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Suspend = true },
			func(s v1alpha1.SearchCampaignSpec) bool { return s.Suspend }},
		{"retryPolicy.maxPartitionRestarts", func(sc *v1alpha1.SearchCampaign) { sc.Spec.RetryPolicy.MaxPartitionRestarts = 25 },
			func(s v1alpha1.SearchCampaignSpec) bool { return s.RetryPolicy.MaxPartitionRestarts == 25 }},
		{"retryPolicy.backoffSeconds", func(sc *v1alpha1.SearchCampaign) { sc.Spec.RetryPolicy.BackoffSeconds = 30 },
			func(s v1alpha1.SearchCampaignSpec) bool { return s.RetryPolicy.BackoffSeconds == 30 }},
		{"activeDeadlineSeconds", func(sc *v1alpha1.SearchCampaign) { sc.Spec.ActiveDeadlineSeconds = ptr(int64(86400)) },
			func(s v1alpha1.SearchCampaignSpec) bool {
				return s.ActiveDeadlineSeconds != nil && *s.ActiveDeadlineSeconds == 86400
			}},
		{"unsuspend", func(sc *v1alpha1.SearchCampaign) { sc.Spec.Suspend = false },
			func(s v1alpha1.SearchCampaignSpec) bool { return !s.Suspend }},
	}
	for _, tc := range accepted {
		t.Run("accepts/"+tc.name, func(t *testing.T) {
			if err := update("fixed", tc.change); err != nil {
				t.Fatalf("refused: %v", err)
			}
			var sc v1alpha1.SearchCampaign
			if err := c.Get(ctx, key("fixed"), &sc); err != nil {
				t.Fatal(err)
			}
			if !tc.check(sc.Spec) {
				t.Errorf("the change did not persist: %+v", sc.Spec)
			}
		})
	}
}

// TestDatabaseImmutableOnceReady: a database's spec may change until its
// status says Ready; then only its status and metadata may.
func TestDatabaseImmutableOnceReady(t *testing.T) {
	env := kubetest.Start(t)
	ctx, c := context.Background(), env.Client
	const immutable = "spec is immutable once the database is Ready"

	mustCreate(ctx, t, c, database("sprot").object())
	get := func() *v1alpha1.BlastDatabase { t.Helper(); return mustGetDatabase(ctx, t, c, "sprot") }
	setPhase := func(phase v1alpha1.DatabasePhase) {
		t.Helper()
		db := get()
		db.Status.Phase = phase
		if err := c.Status().Update(ctx, db); err != nil {
			t.Fatalf("status update to %s: %v", phase, err)
		}
	}

	// Pending (no status yet), then Sharding, then Failed: the spec may change.
	for i, phase := range []v1alpha1.DatabasePhase{"", v1alpha1.DatabaseSharding, v1alpha1.DatabaseFailed} {
		if phase != "" {
			setPhase(phase)
		}
		db := get()
		db.Spec.Shards.Count = ptr(int32(8 + i))
		if err := c.Update(ctx, db); err != nil {
			t.Fatalf("spec change in phase %q refused: %v", phase, err)
		}
		if got := *get().Spec.Shards.Count; got != int32(8+i) {
			t.Fatalf("phase %q: shards.count = %d after the update, want %d", phase, got, 8+i)
		}
	}

	// Ready, as the operator writes it.
	db := get()
	db.Status = v1alpha1.BlastDatabaseStatus{
		Phase: v1alpha1.DatabaseReady, ObservedGeneration: db.Generation,
		Sequences: 572970, Letters: 207132602, Shards: 10, ShardsBuilt: 10,
		Location: "s3://blastfleet/databases/default/sprot", ManifestSHA256: "0123abcd", BlastVersion: "2.12.0+",
		Conditions: []metav1.Condition{{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue,
			Reason: "Sharded", Message: "10 shards built", LastTransitionTime: metav1.Now()}},
	}
	if err := c.Status().Update(ctx, db); err != nil {
		t.Fatalf("status update to Ready: %v", err)
	}
	if got := get().Status.Phase; got != v1alpha1.DatabaseReady {
		t.Fatalf("phase = %q after the status update, want Ready", got)
	}

	for _, tc := range []struct {
		name   string
		change func(*v1alpha1.BlastDatabase)
	}{
		{"shards.count", func(db *v1alpha1.BlastDatabase) { db.Spec.Shards.Count = ptr(int32(16)) }},
		{"source", func(db *v1alpha1.BlastDatabase) { db.Spec.Source.Key = "inputs/trembl.fasta.gz" }},
		{"type", func(db *v1alpha1.BlastDatabase) { db.Spec.Type = v1alpha1.DatabaseNucleotide }},
		{"storage.prefix", func(db *v1alpha1.BlastDatabase) { db.Spec.Storage.Prefix = "elsewhere" }},
		{"image", func(db *v1alpha1.BlastDatabase) { db.Spec.Image = "blastfleet/worker:v2" }},
		{"parallelism", func(db *v1alpha1.BlastDatabase) { db.Spec.Parallelism = ptr(int32(2)) }},
	} {
		t.Run("refuses/"+tc.name, func(t *testing.T) {
			db := get()
			tc.change(db)
			expectInvalid(t, c.Update(ctx, db), immutable)
		})
	}

	t.Run("accepts/metadata", func(t *testing.T) {
		db := get()
		db.Labels = map[string]string{"team": "genomics"}
		if err := c.Update(ctx, db); err != nil {
			t.Fatalf("label change refused: %v", err)
		}
	})
	t.Run("accepts/status", func(t *testing.T) {
		db := get()
		db.Status.BlastVersion = "2.16.0+"
		db.Status.Conditions = append(db.Status.Conditions, metav1.Condition{Type: v1alpha1.ConditionProgressing,
			Status: metav1.ConditionFalse, Reason: "Done", Message: "", LastTransitionTime: metav1.Now()})
		if err := c.Status().Update(ctx, db); err != nil {
			t.Fatalf("status update refused: %v", err)
		}
		if got := get().Status; got.BlastVersion != "2.16.0+" || len(got.Conditions) != 2 || got.Phase != v1alpha1.DatabaseReady {
			t.Errorf("status after the update = %+v", got)
		}
	})
	t.Run("status update cannot smuggle a spec change", func(t *testing.T) {
		db := get()
		db.Spec.Shards.Count = ptr(int32(32))
		db.Status.ShardsBuilt = 9
		if err := c.Status().Update(ctx, db); err != nil {
			t.Fatalf("status update refused: %v", err)
		}
		if got := get(); *got.Spec.Shards.Count != 10 || got.Status.ShardsBuilt != 9 {
			t.Errorf("after a status update with a spec change: shards.count %d (want 10, unchanged), shardsBuilt %d (want 9)",
				*got.Spec.Shards.Count, got.Status.ShardsBuilt)
		}
	})
}
