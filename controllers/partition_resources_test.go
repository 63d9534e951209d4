package controllers

import (
	"slices"
	"strings"
	"testing"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor"
	"github.com/blastfleet/blastfleet/controllers/executor/mpijob"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
)

// sizedDB is a Ready database of known sizes: total (shards and
// shared files), the largest shard, and the files shards share.
func sizedDB(total, largest int64, common ...int64) *v1alpha1.BlastDatabase {
	db := &v1alpha1.BlastDatabase{}
	db.Name, db.Namespace = "nt", "ns"
	db.Status.Phase, db.Status.Bytes, db.Status.LargestShardBytes = v1alpha1.DatabaseReady, total, largest
	for _, c := range common {
		db.Status.CommonBytes += c
	}
	return db
}

const (
	mi = int64(1) << 20
	gi = int64(1) << 30
)

// res is resources of the given quantities ("": none).
func res(reqCPU, reqMem, limCPU, limMem string) corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for _, q := range []struct {
		list corev1.ResourceList
		name corev1.ResourceName
		v    string
	}{{r.Requests, corev1.ResourceCPU, reqCPU}, {r.Requests, corev1.ResourceMemory, reqMem},
		{r.Limits, corev1.ResourceCPU, limCPU}, {r.Limits, corev1.ResourceMemory, limMem}} {
		if q.v != "" {
			q.list[q.name] = mustQuantity(q.v)
		}
	}
	return r
}

func TestSizeWorkers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		slots     int32
		given     corev1.ResourceRequirements
		db        *v1alpha1.BlastDatabase
		want      corev1.ResourceRequirements
		wantCache int64
		wantGroup int64
		wantShort []string
	}{
		// Every slot caches the whole database (one group) and runs BLAST;
		// the master beside them: 2 x (3Gi + 512Mi) + 256Mi.
		{name: "defaults from the database", slots: 2, db: sizedDB(3*gi, gi),
			want: res("2", "7424Mi", "", "7424Mi"), wantCache: 3 * gi},
		// Odd sizes round up to a MiB, and the cache gets the slack.
		{name: "rounded up", slots: 1, db: sizedDB(100*mi+1, 60*mi),
			want: res("1", "869Mi", "", "869Mi"), wantCache: 101 * mi},
		// A database of unknown size (Ready before status.bytes): the
		// slots' working memory, and the engine's unbounded cache.
		{name: "database size unknown", slots: 1, db: sizedDB(0, 0),
			want: res("1", "768Mi", "", "768Mi")},
		{name: "no database", slots: 3, want: res("3", "1792Mi", "", "1792Mi")},
		// A memory limit alone: the request follows it (as Kubernetes
		// would), and it bounds each slot's cache: (4Gi - 256Mi - 2 x
		// 512Mi) / 2, so the database is searched in groups that fit.
		{name: "memory limit given", slots: 2, db: sizedDB(3*gi, gi), given: res("", "", "", "4Gi"),
			want: res("2", "4Gi", "", "4Gi"), wantCache: (4*gi - 256*mi - 1024*mi) / 2},
		// A request alone becomes the limit too.
		{name: "memory request given", slots: 1, db: sizedDB(3*gi, gi), given: res("", "2Gi", "", ""),
			want: res("1", "2Gi", "", "2Gi"), wantCache: 2*gi - 768*mi},
		{name: "memory request below its limit", slots: 1, db: sizedDB(3*gi, gi), given: res("", "2Gi", "", "3Gi"),
			want: res("1", "2Gi", "", "3Gi"), wantCache: 3*gi - 768*mi},
		// CPU: a user's request stays, with no limit added; a limit alone
		// is also the request.
		{name: "cpu request given", slots: 4, given: res("500m", "", "", ""),
			want: res("500m", "2304Mi", "", "2304Mi")},
		{name: "cpu limit given", slots: 1, given: res("", "", "3", ""),
			want: res("3", "768Mi", "3", "768Mi")},
		// Too little memory for the largest shard: the cache still holds
		// it (the engine refuses less; it is on disk), and the note says
		// how much would hold it in memory: 2 x (1Gi + 512Mi) + 256Mi.
		{name: "memory below the largest shard", slots: 2, db: sizedDB(3*gi, gi), given: res("", "", "", "2Gi"),
			want: res("2", "2Gi", "", "2Gi"), wantCache: gi,
			wantShort: []string{"spec.partitions.resources", "memory 2Gi", "a shard group of at least 1Gi, the largest shard,", "3328Mi would hold them"}},
		// Less than BLAST's own, with the sizes unknown: the engine's
		// unbounded cache, as before.
		{name: "memory below the working memory, sizes unknown", slots: 2, db: sizedDB(0, 0), given: res("", "", "", "1Gi"),
			want: res("2", "1Gi", "", "1Gi")},
		// Files every shard shares (LMDB indexes, taxdb) are cached once
		// per slot: in the default, and in what a cache must hold. Groups
		// are cut to what the cache holds beside them.
		{name: "shared files, defaults", slots: 1, db: sizedDB(3*gi+512*mi, gi, 512*mi),
			want: res("1", "4352Mi", "", "4352Mi"), wantCache: 3*gi + 512*mi, wantGroup: 3 * gi},
		{name: "shared files, memory given", slots: 2, db: sizedDB(3*gi+512*mi, gi, 512*mi), given: res("", "", "", "5Gi"),
			want: res("2", "5Gi", "", "5Gi"), wantCache: 1920 * mi, wantGroup: 1408 * mi},
		{name: "shared files, memory below them and the largest shard", slots: 2, db: sizedDB(3*gi+512*mi, gi, 512*mi), given: res("", "", "", "4Gi"),
			want: res("2", "4Gi", "", "4Gi"), wantCache: 1536 * mi, wantGroup: gi,
			wantShort: []string{"at least 1536Mi, the largest shard and the files shards share", "4352Mi would hold them"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v1alpha1.Partitions{Workers: 2, SlotsPerWorker: tc.slots, Resources: tc.given}
			before := *tc.given.DeepCopy()
			got := sizeWorkers(p, tc.db, 0)
			if !sameResources(got.Resources, tc.want) {
				t.Errorf("resources %v, want %v", got.Resources, tc.want)
			}
			if got.CacheBytes != tc.wantCache || got.GroupBytes != tc.wantGroup {
				t.Errorf("cache %d bytes, groups %d, want %d and %d", got.CacheBytes, got.GroupBytes, tc.wantCache, tc.wantGroup)
			}
			for _, w := range tc.wantShort {
				if !strings.Contains(got.Short, w) {
					t.Errorf("note %q, want %q in it", got.Short, w)
				}
			}
			if tc.wantShort == nil && got.Short != "" {
				t.Errorf("note %q, want none", got.Short)
			}
			if !sameResources(p.Resources, before) {
				t.Errorf("the campaign's resources changed: %v", p.Resources)
			}
		})
	}
}

// sameResources compares quantities by value (2Gi equals 2048Mi).
func sameResources(a, b corev1.ResourceRequirements) bool {
	same := func(x, y corev1.ResourceList) bool {
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || v.Cmp(w) != 0 {
				return false
			}
		}
		return true
	}
	return same(a.Requests, b.Requests) && same(a.Limits, b.Limits)
}

// The partition's worker pods get the sized resources, the engine the
// cache they bound; no pod of the partition is BestEffort.
func TestPartitionSpecSized(t *testing.T) {
	req := aCampaign().partitions(1, 3, 2).request(0, 0)
	req.Database = sizedDB(3*gi, gi)
	s := NewPartitionSpec(req)
	if want := res("2", "7424Mi", "", "7424Mi"); !sameResources(s.Resources, want) {
		t.Errorf("resources %v, want %v", s.Resources, want)
	}
	if i := slices.Index(s.Engine.Argv(), "--cache-bytes"); i < 0 || i+1 >= len(s.Engine.Argv()) || s.Engine.Argv()[i+1] != "3221225472" {
		t.Errorf("command %q, want --cache-bytes 3221225472", s.Engine.Argv())
	}
	obj, err := mpijob.Executor{}.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	for role, r := range obj.(*kubeflow.MPIJob).Spec.MPIReplicaSpecs {
		pod := r.Template.Spec
		for _, c := range append(pod.InitContainers, pod.Containers...) {
			if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
				t.Errorf("%s container %s requests %v: BestEffort", role, c.Name, c.Resources.Requests)
			}
		}
		if role == kubeflow.MPIReplicaTypeWorker && !sameResources(pod.Containers[0].Resources, s.Resources) {
			t.Errorf("worker resources %v, want %v", pod.Containers[0].Resources, s.Resources)
		}
	}
	if slices.Contains(s.Engine.Argv(), "--group-bytes") {
		t.Errorf("command %q bounds groups below the cache, with no shared files", s.Engine.Argv())
	}
	req.Database = sizedDB(3*gi+512*mi, gi, 512*mi)
	if s := NewPartitionSpec(req); !slices.Contains(s.Engine.Argv(), "--group-bytes") {
		t.Errorf("command %q does not keep groups within the cache beside the shared files", s.Engine.Argv())
	}
	// Unknown size: no bound given to the engine's cache.
	req.Database = sizedDB(0, 0)
	if s := NewPartitionSpec(req); slices.Contains(s.Engine.Argv(), "--cache-bytes") {
		t.Errorf("command %q bounds the cache of a database of unknown size", s.Engine.Argv())
	}
}

// A database's sizes come from its manifest: every file a worker caches.
func TestSetSizes(t *testing.T) {
	shard := func(sizes ...int64) manifest.Shard {
		var s manifest.Shard
		for _, n := range sizes {
			s.Files = append(s.Files, manifest.File{Size: n})
		}
		return s
	}
	m := &manifest.Manifest{Shards: []manifest.Shard{shard(100, 20), shard(300, 5), shard(50)},
		Common: []manifest.File{{Name: "taxdb.btd", Size: 7}, {Name: "taxdb.bti", Size: 3}}}
	var st v1alpha1.BlastDatabaseStatus
	setSizes(&st, m)
	if st.Bytes != 485 || st.LargestShardBytes != 305 || st.CommonBytes != 10 {
		t.Errorf("bytes %d, largest shard %d, common %d; want 485, 305, 10", st.Bytes, st.LargestShardBytes, st.CommonBytes)
	}
}

// The worker pods' scratch emptyDir is bounded by what their slots'
// shard caches and working files take, or by spec.partitions.scratchSize;
// it had no bound, so a pod could fill its node's disk (issue 30,
// finding 15).
func TestScratchSizeLimit(t *testing.T) {
	scratch := func(s *executor.PartitionSpec) *resource.Quantity {
		obj, err := mpijob.Executor{}.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range obj.(*kubeflow.MPIJob).Spec.MPIReplicaSpecs[kubeflow.MPIReplicaTypeWorker].Template.Spec.Volumes {
			if v.Name == "scratch" {
				return v.EmptyDir.SizeLimit
			}
		}
		t.Fatal("no scratch volume")
		return nil
	}
	req := aCampaign().partitions(1, 3, 2).request(0, 0)
	for _, c := range []struct {
		name   string
		db     *v1alpha1.BlastDatabase
		memory string
		asked  string
		want   string // "" for no bound
	}{
		// Each of 2 slots caches the whole 3Gi database, beside 1Gi of files.
		{"whole database", sizedDB(3*gi, gi), "", "", "8Gi"},
		// Memory bounds each slot's cache to 1280Mi (3840Mi less 256Mi
		// for the master, 2 x 512Mi of BLAST's, / 2).
		{"cache bounded by memory", sizedDB(3*gi, gi), "3840Mi", "", "4608Mi"},
		{"size unknown", sizedDB(0, 0), "", "", ""},
		{"asked", sizedDB(3*gi, gi), "", "20Gi", "20Gi"},
		{"asked none", sizedDB(3*gi, gi), "", "0", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := *req
			c2 := r.Campaign.DeepCopy()
			if c.memory != "" {
				c2.Spec.Partitions.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(c.memory)}
			}
			if c.asked != "" {
				q := resource.MustParse(c.asked)
				c2.Spec.Partitions.ScratchSize = &q
			}
			r.Campaign, r.Database = c2, c.db
			got := scratch(NewPartitionSpec(&r))
			switch {
			case c.want == "" && got != nil:
				t.Errorf("scratch bounded by %s, want no bound", got)
			case c.want != "" && (got == nil || got.Cmp(resource.MustParse(c.want)) != 0):
				t.Errorf("scratch bounded by %v, want %s", got, c.want)
			}
		})
	}
}

// The master holds every query: the worker pods' memory counts twice the
// queries object (measured 1.84x), which it did not, so a campaign of
// many short reads left the master's pod short of memory (issue 30,
// finding 15).
func TestMasterQueriesCounted(t *testing.T) {
	req := aCampaign().partitions(1, 3, 2).request(0, 0)
	req.Database = sizedDB(3*gi, gi)
	req.QueryBytes = gi
	s := NewPartitionSpec(req)
	// 2 slots x 3Gi, 256Mi for the master and 2Gi for its queries, 2 x 512Mi for BLAST.
	if want := res("2", "9472Mi", "", "9472Mi"); !sameResources(s.Resources, want) {
		t.Errorf("resources %v, want %v", s.Resources, want)
	}
	// A memory given: the queries come out of the shards' cache.
	c := req.Campaign.DeepCopy()
	c.Spec.Partitions.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("9472Mi")}
	req.Campaign = c
	if w := sizeWorkers(c.Spec.Partitions, req.Database, gi); w.CacheBytes != 3*gi {
		t.Errorf("cache %d bytes a slot, want %d", w.CacheBytes, 3*gi)
	}
}
