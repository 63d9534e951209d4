package controllers

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// What a worker pod needs besides the shards its ranks search, as
// ElasticBLAST's tuner sizes a BLAST pod from its database plus a margin.
const (
	// rankWorkingBytes is one searching rank's own memory: BLAST's lookup
	// table and hit lists for a query block, and the hits the engine holds
	// until they are written (bounded by its write buffer).
	rankWorkingBytes = 512 << 20
	// masterBytes is the engine's master: the first pod's extra rank
	// (MPIJob) or a goroutine beside the workers (Argo). It keeps the
	// ledger's chunks and per-query metadata, not sequences.
	masterBytes = 256 << 20
	// masterQueryRatio: the master holds every query of the campaign
	// (ids, deflines, letters), measured at 1.84 times the queries
	// object's bytes (100,000 and 400,000 reads of 300 letters).
	masterQueryRatio = 2
	// scratchSlackBytes is a slot's scratch beside its shard cache: the
	// query block, BLAST's output for a task, alias files.
	scratchSlackBytes = 1 << 30
)

// workerSizing is what a worker pod asks for, and how many bytes of
// shards each of its searching ranks caches (the engine's --cache-bytes).
type workerSizing struct {
	Resources corev1.ResourceRequirements
	// CacheBytes bounds each rank's shard cache, and so the shard groups
	// a task searches; 0 leaves it to the engine (unbounded: one group,
	// the whole database), when the database's sizes are not known.
	CacheBytes int64
	// GroupBytes bounds a task's shard group (the engine's
	// --group-bytes) where the cache also holds files the shards share;
	// 0: the cache's bound.
	GroupBytes int64
	// Short says the memory given is less than a slot's smallest group
	// and BLAST want: the partition runs, with groups of one shard.
	Short string
	// Scratch bounds the scratch emptyDir (nil: no bound):
	// spec.partitions.scratchSize, else what the slots' shard caches and
	// working files can take.
	Scratch *resource.Quantity
}

// sizeWorkers is a worker pod's resources: spec.partitions.resources,
// with what it leaves out defaulted from its slots, the database (db may
// be nil, or not know its size: then only the slots count) and the
// queries object's bytes (0: unknown), which the master holds.
//
//   - CPU: requested, one per slot: each searching rank runs BLAST on one
//     thread. No limit: a CFS quota would only throttle the pod's bursts
//     (fetching and checking shards, the writer's merges, and the master,
//     which shares the first pod's cores), and the scheduler places pods
//     by their requests, not limits, so a limit buys no placement. The
//     memory request already makes the pod Burstable, never BestEffort.
//   - Memory: requested and limited (the same: a pod over its request is
//     the first a node under pressure evicts, and the limit decides what
//     the shard cache may use). By default every slot gets the largest
//     shard group it caches (the whole database: without --cache-bytes
//     the engine searches it as one group), so BLAST reads it from the
//     page cache, not the disk, plus its working memory; and the master
//     its own and twice the queries object (it holds every query). A user's memory is kept, and its limit (or request)
//     bounds each rank's cache, so groups are cut to fit it (never below
//     the largest shard: the engine refuses a cache smaller).
//   - Scratch: the emptyDir holding each rank's shard cache is bounded
//     by what those caches and a task's files take (scratchLimit), so a
//     pod cannot fill its node's disk; spec.partitions.scratchSize
//     instead when given.
func sizeWorkers(p v1alpha1.Partitions, db *v1alpha1.BlastDatabase, queryBytes int64) workerSizing {
	w := sizeMemory(p, db, queryBytes)
	var dbBytes int64
	if db != nil {
		dbBytes = db.Status.Bytes
	}
	w.Scratch = scratchLimit(p.ScratchSize, int64(max(p.SlotsPerWorker, 1)), w.CacheBytes, dbBytes)
	return w
}

// sizeMemory is sizeWorkers but for the scratch.
func sizeMemory(p v1alpha1.Partitions, db *v1alpha1.BlastDatabase, queryBytes int64) workerSizing {
	slots := int64(max(p.SlotsPerWorker, 1))
	res := *p.Resources.DeepCopy()
	if res.Requests == nil {
		res.Requests = corev1.ResourceList{}
	}
	if res.Limits == nil {
		res.Limits = corev1.ResourceList{}
	}
	if _, ok := res.Requests[corev1.ResourceCPU]; !ok {
		if l, ok := res.Limits[corev1.ResourceCPU]; ok {
			res.Requests[corev1.ResourceCPU] = l // what Kubernetes would default
		} else {
			res.Requests[corev1.ResourceCPU] = *resource.NewQuantity(slots, resource.DecimalSI)
		}
	}
	var dbBytes, largest, common int64
	if db != nil {
		dbBytes, largest, common = db.Status.Bytes, db.Status.LargestShardBytes, db.Status.CommonBytes
	}
	master := masterBytes + masterQueryRatio*max(queryBytes, 0)
	overhead := master + slots*rankWorkingBytes
	memory := workerMemory(res, roundUpMi(slots*dbBytes+overhead))
	w := workerSizing{Resources: res}
	if dbBytes == 0 {
		return w // sizes unknown: nothing to cut groups to, the engine's one group
	}
	// A cache holds the files shards share, then whole shards: at least
	// the largest, whatever the memory (the cache is on disk; a memory
	// that cannot hold it only makes BLAST read the shards from there).
	least := largest + common
	w.CacheBytes = (memory.Value() - overhead) / slots
	if w.CacheBytes < least && least > 0 {
		w.CacheBytes = least
		w.Short = fmt.Sprintf("spec.partitions.resources: memory %s is less than what %d slots want (each a shard group of at least %s, the largest shard%s, and BLAST's %s; the master %s): shards are searched one at a time, read from the disk more than from memory; %s would hold them in memory",
			memory.String(), slots, bytesQuantity(least), commonNote(common), bytesQuantity(rankWorkingBytes), bytesQuantity(master), bytesQuantity(slots*least+overhead))
	}
	if common > 0 {
		// The engine cuts groups to --cache-bytes, but its cache keeps
		// the shared files' room: a group must fit the rest.
		w.GroupBytes = w.CacheBytes - common
	}
	return w
}

// scratchLimit is the scratch emptyDir's bound: the campaign's (0: none),
// else each slot's shard cache (never more than the whole database: the
// cache is bounded by --cache-bytes, and without it holds at most every
// shard) and its working files; nil while the database's size is unknown.
func scratchLimit(asked *resource.Quantity, slots, cacheBytes, dbBytes int64) *resource.Quantity {
	if asked != nil {
		if asked.Sign() <= 0 {
			return nil
		}
		q := asked.DeepCopy()
		return &q
	}
	if dbBytes <= 0 {
		return nil
	}
	cached := dbBytes
	if cacheBytes > 0 {
		cached = min(cacheBytes, dbBytes)
	}
	return resource.NewQuantity(roundUpMi(slots*(cached+scratchSlackBytes)), resource.BinarySI)
}

func commonNote(common int64) string {
	if common == 0 {
		return ""
	}
	return " and the files shards share"
}

// workerMemory sets res's memory request and limit: the user's limit,
// else request, else def bytes; the request stays if given. It returns
// the limit.
func workerMemory(res corev1.ResourceRequirements, def int64) resource.Quantity {
	memory, ok := res.Limits[corev1.ResourceMemory]
	if !ok {
		memory, ok = res.Requests[corev1.ResourceMemory]
	}
	if !ok {
		memory = *resource.NewQuantity(def, resource.BinarySI)
	}
	if _, ok := res.Requests[corev1.ResourceMemory]; !ok {
		res.Requests[corev1.ResourceMemory] = memory
	}
	res.Limits[corev1.ResourceMemory] = memory
	return memory
}

// bytesQuantity prints n bytes rounded up to a MiB, as Kubernetes
// prints quantities (Mi, Gi...).
func bytesQuantity(n int64) string {
	return resource.NewQuantity(roundUpMi(n), resource.BinarySI).String()
}

// roundUpMi rounds n bytes up to whole MiB: a default a user reads in
// kubectl as 1280Mi, not 1342177281.
func roundUpMi(n int64) int64 {
	const mi = 1 << 20
	return (n + mi - 1) / mi * mi
}
