package kubecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/cli"
)

// submitSpec is a campaign described by flags. Only the flags the user
// gave reach the object: the API server defaults the rest and validates
// what was given, so "--partitions 0" is refused by the server with its
// own message rather than silently dropped (a typed object would omit
// a zero partitions struct and get the defaults).
type submitSpec struct {
	name, database, queries, program, outfmt, evalue, topHits, transfer, batching string
	maxTargetSeqs                                                                 int32
	blastOptions                                                                  []string
	chunkLetters                                                                  int64
	chunkQueries                                                                  int32
	partitions, workers, slots                                                    int32
	minPartitions, maxPartitions                                                  int32
	image, queue, executor                                                        string
	suspend                                                                       bool
	deadline                                                                      time.Duration
	finishBy                                                                      string

	endpoint, region, bucket, prefix, credentialsSecret string
	caConfigMap, serviceAccount                         string
	queriesStore                                        storeFlags
	// queryFiles are the --queries given; several, or a tarball, are
	// joined into one file here, which queries then names.
	queryFiles []string
	resources  resourceFlags
}

// storeFlags describe the queries' own store (spec.queries.storage).
type storeFlags struct {
	endpoint, region, credentialsSecret, caConfigMap string
	anonymous                                        bool
}

// queriesStoreFlags are the flags that give the queries a store of their
// own.
var queriesStoreFlags = []string{"queries-endpoint", "queries-region", "queries-credentials-secret", "queries-anonymous", "queries-ca-configmap"}

// submitSpecFlags are the flags that describe a campaign, which -f
// excludes: the file says it all.
var submitSpecFlags = []string{
	"name", "database", "queries", "program", "outfmt", "evalue", "top-hits", "transfer", "batching", "max-target-seqs", "blast-option",
	"chunk-letters", "chunk-queries", "partitions", "workers", "slots", "executor", "image", "queue", "suspend", "deadline",
	"finish-by", "min-partitions", "max-partitions", "endpoint", "region", "bucket", "prefix", "credentials-secret",
	"ca-configmap", "service-account", "queries-endpoint", "queries-region", "queries-credentials-secret", "queries-anonymous",
	"queries-ca-configmap", "cpu", "cpu-limit", "memory",
}

func (s *submitSpec) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.name, "name", "", "the campaign's name (a DNS-1035 label: it names the partitions' pods)")
	f.StringVar(&s.database, "database", "", "the BlastDatabase to search, in the same namespace")
	f.StringArrayVar(&s.queryFiles, "queries", nil, "the query FASTA (gzip or not): a file here, which is checked and uploaded beside the campaign, or s3://bucket/key, an object already in a bucket; "+
		"repeat it, or give a tarball (.tar, .tar.gz, .tgz) of FASTA files, and the files here are joined in the order given into the one queries object")
	f.StringVar(&s.program, "program", "", blast.ProgramList())
	f.StringVar(&s.outfmt, "outfmt", "", `output format: tabular 6, 7 or 10 with columns, e.g. "6 qseqid sseqid evalue bitscore", or a report: 0, 5, 11, 15, 16, 17 (SAM, blastn only) (server default "6")`)
	f.StringVar(&s.batching, "batching", "", "how queries are cut into BLAST+ batches: blast (BLAST+'s own, as one BLAST+ run of the file) or alone (each query alone, independent of its neighbours: one database scan per query) (server default blast)")
	f.StringVar(&s.transfer, "transfer", "", "what partitions commit: full, or metadata (the ids of each query's hits; blastfleet results regenerates the output) (server default full)")
	f.StringVar(&s.evalue, "evalue", "", "E-value cut-off as a decimal, e.g. 1e-5 (default: BLAST's, 10)")
	f.StringVar(&s.topHits, "top-hits", "", "auto, exact or overfetch[=F] (server default auto)")
	f.Int32Var(&s.maxTargetSeqs, "max-target-seqs", 0, "subjects kept per query over the whole database (server default 500)")
	f.StringArrayVar(&s.blastOptions, "blast-option", nil, "further BLAST option, -name=value or -name for a flag, e.g. --blast-option=-word_size=11 (repeatable)")
	f.Int64Var(&s.chunkLetters, "chunk-letters", 0, "cut chunks of about this many query letters (server default 1000000)")
	f.Int32Var(&s.chunkQueries, "chunk-queries", 0, "cut chunks of this many queries")
	f.Int32Var(&s.partitions, "partitions", 0, "partitions (MPIJobs, or Workflows with --executor argo) running at once (server default 1)")
	f.StringVar(&s.executor, "executor", "", "what runs the partitions: mpijob (Kubeflow MPIJobs) or argo (Argo Workflows, where there is no MPI operator; not with --queue) (server default mpijob)")
	f.Int32Var(&s.workers, "workers", 0, "worker pods per partition (server default 2)")
	f.Int32Var(&s.slots, "slots", 0, "searching MPI ranks per worker pod; the master is a rank more (server default 1)")
	s.resources.addFlags(f)
	f.StringVar(&s.image, "image", "", "worker image (default: the operator's --worker-image)")
	f.StringVar(&s.queue, "queue", "", "Kueue LocalQueue the partitions are submitted to")
	f.BoolVar(&s.suspend, "suspend", false, "create the campaign suspended (resume it with resume NAME)")
	f.DurationVar(&s.deadline, "deadline", 0, "fail the campaign if it runs longer than this, e.g. 12h")
	f.StringVar(&s.finishBy, "finish-by", "", `finish by this time (RFC 3339, "2026-11-26T13:00:00Z") or this long after the start ("6h"): partitions are added, up to --max-partitions, as the sites' rates need`)
	f.Int32Var(&s.minPartitions, "min-partitions", 0, "with --finish-by, the fewest partitions (server default 1)")
	f.Int32Var(&s.maxPartitions, "max-partitions", 0, "with --finish-by, the most partitions (required with it)")
	f.StringVar(&s.endpoint, "endpoint", "", "S3 endpoint of the output, e.g. http://minio.minio.svc:9000 (default: the database's)")
	f.StringVar(&s.region, "region", "", "region of the output bucket (default: the database's)")
	f.StringVar(&s.bucket, "bucket", "", "bucket of the output (default: the database's)")
	f.StringVar(&s.prefix, "prefix", "campaigns", "key prefix of the output; the ledger goes to <prefix>/<namespace>/<name>/")
	f.StringVar(&s.credentialsSecret, "credentials-secret", "", "Secret holding AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (default: the database's; none: the pods' identity)")
	f.StringVar(&s.caConfigMap, "ca-configmap", "", "ConfigMap[:key] (key default ca.crt) with the PEM CA of a private output endpoint, labelled blastfleet.io/ca-bundle=true (default: the database's when the endpoint is)")
	f.StringVar(&s.serviceAccount, "service-account", "", "service account the campaign's pods run as, e.g. one with an IRSA role for stores without a Secret")
	q := &s.queriesStore
	f.StringVar(&q.endpoint, "queries-endpoint", "", "S3 endpoint of the queries when they are on their own store (--queries s3://bucket/key); empty with another --queries-* flag: AWS S3")
	f.StringVar(&q.region, "queries-region", "", "region of the queries' bucket")
	f.StringVar(&q.credentialsSecret, "queries-credentials-secret", "", "Secret with the keys of the queries' store (none: the pods' identity)")
	f.BoolVar(&q.anonymous, "queries-anonymous", false, "read the queries unsigned, from a public bucket")
	f.StringVar(&q.caConfigMap, "queries-ca-configmap", "", "ConfigMap[:key] with the PEM CA of the queries' private endpoint, labelled blastfleet.io/ca-bundle=true")
}

// checkRequired names the flags a campaign cannot do without.
func (s *submitSpec) checkRequired() error {
	var missing []string
	for _, f := range []struct{ name, value string }{{"name", s.name}, {"database", s.database}, {"queries", s.queries}, {"program", s.program}} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, "--"+f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s required (or give the whole campaign with -f FILE)", strings.Join(missing, ", "))
	}
	return nil
}

// given reports whether the user gave a flag (cmd.Flags().Changed).
type given func(flag string) bool

// object builds the SearchCampaign; storage is the database's storage to
// take the output's endpoint, bucket and Secret from when not given.
func (s *submitSpec) object(given given, namespace string, storage *v1alpha1.ObjectStorage) (*unstructured.Unstructured, error) {
	queries, err := queriesRef(s.queries)
	if err != nil {
		return nil, err
	}
	if ownStore(given) {
		if queries, err = s.queriesStore.spec(s.queries); err != nil {
			return nil, err
		}
	}
	spec := map[string]any{
		"databaseRef": map[string]any{"name": s.database},
		"queries":     queries,
		"program":     s.program,
	}
	put := func(flag string, value any, path ...string) {
		if given(flag) {
			setPath(spec, value, path...)
		}
	}
	put("outfmt", s.outfmt, "outfmt")
	put("evalue", s.evalue, "evalue")
	put("top-hits", s.topHits, "topHits")
	put("transfer", s.transfer, "transfer")
	put("batching", s.batching, "batching")
	put("max-target-seqs", int64(s.maxTargetSeqs), "maxTargetSeqs")
	put("chunk-letters", s.chunkLetters, "chunking", "letters")
	put("chunk-queries", int64(s.chunkQueries), "chunking", "queries")
	put("partitions", int64(s.partitions), "partitions", "count")
	put("workers", int64(s.workers), "partitions", "workers")
	put("slots", int64(s.slots), "partitions", "slotsPerWorker")
	put("min-partitions", int64(s.minPartitions), "partitions", "min")
	put("max-partitions", int64(s.maxPartitions), "partitions", "max")
	put("executor", s.executor, "executor")
	put("image", s.image, "partitions", "image")
	put("service-account", s.serviceAccount, "partitions", "serviceAccountName")
	if err := s.resources.put(given, spec); err != nil {
		return nil, err
	}
	put("queue", s.queue, "queueName")
	put("suspend", s.suspend, "suspend")
	// Rounded up: a deadline under a second still bounds the campaign.
	put("deadline", int64((s.deadline+time.Second-1)/time.Second), "activeDeadlineSeconds")
	if given("finish-by") {
		d, err := finishBy(s.finishBy)
		if err != nil {
			return nil, err
		}
		spec["deadline"] = d
	}
	if len(s.blastOptions) > 0 {
		var opts []any
		for _, o := range s.blastOptions {
			opt, err := parseBlastOption(o)
			if err != nil {
				return nil, err
			}
			opts = append(opts, opt)
		}
		spec["blastOptions"] = opts
	}
	spec["output"] = s.output(given, storage)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(),
		"kind":       "SearchCampaign",
		"metadata":   map[string]any{"name": s.name, "namespace": namespace},
		"spec":       spec,
	}}, nil
}

// output is the output storage: the flags given, the rest from the
// database's storage (its CA too while its endpoint is the output's),
// and the prefix "campaigns" unless given.
func (s *submitSpec) output(given given, db *v1alpha1.ObjectStorage) map[string]any {
	out := map[string]any{}
	pick := func(flag, value, fromDB string) string {
		if given(flag) {
			return value
		}
		return fromDB
	}
	var dbEndpoint, dbRegion, dbBucket string
	var dbSecret *v1alpha1.CredentialsSecretRef
	if db != nil {
		dbEndpoint, dbRegion, dbBucket, dbSecret = db.Endpoint, db.Region, db.Bucket, db.CredentialsSecretRef
	}
	for key, v := range map[string]string{
		"endpoint": pick("endpoint", s.endpoint, dbEndpoint),
		"region":   pick("region", s.region, dbRegion),
		"bucket":   pick("bucket", s.bucket, dbBucket),
		"prefix":   s.prefix,
	} {
		if v != "" {
			out[key] = v
		}
	}
	switch {
	case given("ca-configmap"):
		out["caBundle"] = configMapKey(s.caConfigMap)
	case db != nil && db.CABundle != nil && !given("endpoint"):
		out["caBundle"] = map[string]any{"name": db.CABundle.Name, "key": db.CABundle.Key}
	}
	switch {
	case given("credentials-secret"):
		out["credentialsSecretRef"] = map[string]any{"name": s.credentialsSecret}
	case dbSecret != nil:
		ref := map[string]any{"name": dbSecret.Name}
		if dbSecret.AccessKeyIDKey != "" {
			ref["accessKeyIDKey"] = dbSecret.AccessKeyIDKey
		}
		if dbSecret.SecretAccessKeyKey != "" {
			ref["secretAccessKeyKey"] = dbSecret.SecretAccessKeyKey
		}
		out["credentialsSecretRef"] = ref
	}
	return out
}

// needsDatabaseStorage: some output field is to come from the database.
func (s *submitSpec) needsDatabaseStorage(given given) bool {
	for _, name := range []string{"endpoint", "region", "bucket", "credentials-secret"} {
		if !given(name) {
			return true
		}
	}
	return false
}

// databaseStorage reads the database's storage for the output's defaults.
// A database that is not there yet is no error (the campaign waits for
// it), but the user hears that the output comes from the flags alone.
func databaseStorage(ctx context.Context, kc *kube, namespace, name string, errOut io.Writer) *v1alpha1.ObjectStorage {
	var db v1alpha1.BlastDatabase
	if err := kc.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &db); err != nil {
		cli.Hint(errOut, "note: the output storage comes from the flags alone: reading BlastDatabase %s/%s: %v", namespace, name, err)
		return nil
	}
	return &db.Spec.Storage
}

// finishBy turns --finish-by into spec.deadline: a time, or a duration
// after the start (the API server checks either).
func finishBy(v string) (map[string]any, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return map[string]any{"time": t.UTC().Format(time.RFC3339)}, nil
	}
	if _, err := time.ParseDuration(v); err == nil {
		return map[string]any{"after": v}, nil
	}
	return nil, fmt.Errorf("--finish-by %q: want an RFC 3339 time (2026-11-26T13:00:00Z) or a duration after the start (6h)", v)
}

// queriesRef turns s3://bucket/key into spec.queries; a file here gets
// its key when it is uploaded (uploadQueries).
func queriesRef(q string) (map[string]any, error) {
	if localQueries(q) {
		return map[string]any{}, nil
	}
	rest, isS3 := strings.CutPrefix(q, "s3://")
	bucket, key, _ := strings.Cut(rest, "/")
	if !isS3 || bucket == "" || key == "" {
		return nil, fmt.Errorf("--queries %q: want s3://bucket/key for an object in a bucket, or a file here", q)
	}
	return map[string]any{"bucket": bucket, "key": key}, nil
}

// parseBlastOption reads "-name=value", "-name value" or "-name" (dashes
// optional), split as BLAST's command line reads it (blast.SplitOption).
// The name and value are checked with the rest of the search by
// checkSearch, and by the API server against the allowlist.
// (-taxidlist and -negative_taxidlist are taken out before: they name a
// file, see splitTaxidLists.)
func parseBlastOption(s string) (map[string]any, error) {
	name, value, hasValue := blast.SplitOption(s)
	if name == "" {
		return nil, fmt.Errorf("--blast-option %q: want -name=value, or -name for a flag such as -ungapped", s)
	}
	opt := map[string]any{"name": name}
	if hasValue {
		opt["value"] = value
	}
	return opt, nil
}

// setPath sets m[path[0]][path[1]]... = value, making the maps between.
func setPath(m map[string]any, value any, path ...string) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
}

// ownStore: some --queries-* flag gives the queries their own store.
func ownStore(given given) bool {
	for _, f := range queriesStoreFlags {
		if given(f) {
			return true
		}
	}
	return false
}

// spec is spec.queries on the queries' own store: --queries must then be
// s3://bucket/key, the bucket being the store's.
func (q storeFlags) spec(location string) (map[string]any, error) {
	rest, ok := strings.CutPrefix(location, "s3://")
	bucket, key, _ := strings.Cut(rest, "/")
	if !ok || bucket == "" || key == "" {
		return nil, fmt.Errorf("--queries %q: with --queries-endpoint and the other --queries-* flags, want s3://bucket/key on that store", location)
	}
	if q.anonymous && q.credentialsSecret != "" {
		return nil, errors.New("--queries-anonymous and --queries-credentials-secret exclude each other")
	}
	st := map[string]any{"bucket": bucket}
	for k, v := range map[string]string{"endpoint": q.endpoint, "region": q.region} {
		if v != "" {
			st[k] = v
		}
	}
	if q.credentialsSecret != "" {
		st["credentialsSecretRef"] = map[string]any{"name": q.credentialsSecret}
	}
	if q.anonymous {
		st["anonymous"] = true
	}
	if q.caConfigMap != "" {
		st["caBundle"] = configMapKey(q.caConfigMap)
	}
	return map[string]any{"key": key, "storage": st}, nil
}

// configMapKey reads NAME[:KEY] as a caBundle reference.
func configMapKey(v string) map[string]any {
	name, key, ok := strings.Cut(v, ":")
	ref := map[string]any{"name": name}
	if ok && key != "" {
		ref["key"] = key
	}
	return ref
}
