package enginemetrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// Labels identify a run: where the operator started it (empty outside a
// campaign).
type Labels struct {
	Namespace, Campaign, Partition, Site string
}

// Set is one process's registry; it holds the series of every rank the
// process runs (one under mpirun, all of them run locally).
type Set struct {
	reg    *prometheus.Registry
	labels Labels
}

// NewSet makes an empty registry for runs labelled l.
func NewSet(l Labels) *Set {
	return &Set{reg: prometheus.NewRegistry(), labels: l}
}

// Registry is what /metrics serves.
func (s *Set) Registry() *prometheus.Registry { return s.reg }

// Rank is one rank's series.
type Rank struct {
	tasks         *prometheus.CounterVec
	blastSeconds  *prometheus.HistogramVec
	queueWait     prometheus.Histogram
	phaseSeconds  *prometheus.CounterVec
	cacheHits     prometheus.Counter
	cacheMisses   prometheus.Counter
	fetchBytes    prometheus.Counter
	storeBytes    *prometheus.CounterVec
	storeErrors   *prometheus.CounterVec
	storeSkips    *prometheus.CounterVec
	storeBusy     *prometheus.CounterVec
	writtenBytes  *prometheus.CounterVec
	queries       prometheus.Counter
	letters       prometheus.Counter
	chunkSeconds  prometheus.Histogram
	ledgerCalls   *prometheus.CounterVec
	ledgerErrors  *prometheus.CounterVec
	ledgerSeconds *prometheus.HistogramVec
}

// Buckets: tasks run from milliseconds (the simulate backend) to hours,
// chunks from seconds to a day, object-store calls from a millisecond up.
var (
	taskBuckets   = prometheus.ExponentialBuckets(0.01, 4, 10)  // 10 ms .. 44 min
	waitBuckets   = prometheus.ExponentialBuckets(0.001, 4, 10) // 1 ms .. 4.4 min
	chunkBuckets  = prometheus.ExponentialBuckets(1, 3, 11)     // 1 s .. 16 h
	ledgerBuckets = prometheus.ExponentialBuckets(0.001, 3, 10) // 1 ms .. 20 s
)

// Rank registers rank's series; role is master or worker. Registering a
// rank twice is a programming error and panics. A nil Set gives a nil
// Rank: metrics off.
func (s *Set) Rank(rank int, role string) *Rank {
	if s == nil {
		return nil
	}
	f := s.factory(rank, role)
	r := &Rank{
		phaseSeconds: f.counterVec("blastfleet_engine_phase_seconds_total",
			"Seconds this rank spent per S3aSim phase (setup, distribution, compute, merge, gather, write, sync).", "phase"),
		writtenBytes: f.counterVec("blastfleet_engine_written_bytes_total",
			"Bytes of merged output this rank wrote, by output strategy.", "strategy"),
	}
	// Each role exports what it does, so no rank carries series that
	// can only ever be zero.
	if role == "master" {
		r.queries = f.counter("blastfleet_engine_queries_total",
			"Queries whose merged output the master handed to the writers.")
		r.letters = f.counter("blastfleet_engine_query_letters_total",
			"Letters (residues or bases) of the queries counted in blastfleet_engine_queries_total.")
		r.chunkSeconds = f.histogram("blastfleet_engine_chunk_seconds",
			"Seconds from leasing a campaign chunk to committing its result.", chunkBuckets)
		r.ledgerCalls = f.counterVec("blastfleet_engine_ledger_requests_total",
			"Campaign ledger operations (each one or more object-store requests), by operation.", "op")
		r.ledgerErrors = f.counterVec("blastfleet_engine_ledger_errors_total",
			"Campaign ledger operations that failed, by operation.", "op")
		r.ledgerSeconds = f.histogramVec("blastfleet_engine_ledger_request_seconds",
			"Seconds a campaign ledger operation took, by operation.", ledgerBuckets, "op")
		return r
	}
	r.tasks = f.counterVec("blastfleet_engine_tasks_total",
		"Tasks (a query block against a shard group) this rank ran to completion.", "program")
	r.blastSeconds = f.histogramVec("blastfleet_engine_blast_seconds",
		"Seconds BLAST (or the simulate backend's model) took per task.", taskBuckets, "program")
	r.queueWait = f.histogram("blastfleet_engine_queue_wait_seconds",
		"Seconds a worker waited from asking for work to receiving a task.", waitBuckets)
	r.cacheHits = f.counter("blastfleet_engine_shard_cache_hits_total",
		"Shard lookups served from the worker's local cache.")
	r.cacheMisses = f.counter("blastfleet_engine_shard_cache_misses_total",
		"Shard lookups that fetched the shard from object storage.")
	r.fetchBytes = f.counter("blastfleet_engine_shard_fetch_bytes_total",
		"Bytes of database shards fetched from object storage.")
	r.storeBytes = f.counterVec("blastfleet_engine_store_read_bytes_total",
		"Bytes of shards read from each store of a replicated database.", "store")
	r.storeErrors = f.counterVec("blastfleet_engine_store_read_errors_total",
		"Failed shard reads (errors, short reads, missing objects) per store of a replicated database.", "store")
	r.storeSkips = f.counterVec("blastfleet_engine_store_skips_total",
		"Times a store of a replicated database was skipped as a hot spot or after failing.", "store")
	r.storeBusy = f.counterVec("blastfleet_engine_store_busy_seconds_total",
		"Seconds with a shard read in flight per store of a replicated database (bytes / busy seconds: its throughput).", "store")
	return r
}

// factory registers collectors with one rank's constant labels.
type factory struct {
	reg    prometheus.Registerer
	labels prometheus.Labels
}

func (s *Set) factory(rank int, role string) factory {
	return factory{reg: s.reg, labels: prometheus.Labels{
		"namespace": s.labels.Namespace, "campaign": s.labels.Campaign, "partition": s.labels.Partition,
		"site": s.labels.Site, "rank": strconv.Itoa(rank), "role": role,
	}}
}

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: f.labels})
	f.reg.MustRegister(c)
	return c
}

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: f.labels}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, ConstLabels: f.labels, Buckets: buckets})
	f.reg.MustRegister(h)
	return h
}

func (f factory) histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, ConstLabels: f.labels, Buckets: buckets}, labels)
	f.reg.MustRegister(h)
	return h
}
