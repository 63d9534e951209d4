package engine

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blast"
	"github.com/blastfleet/blastfleet/internal/bio/taxfilter"
	"github.com/blastfleet/blastfleet/internal/engine/enginemetrics"
	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/engine/transport"
	"github.com/blastfleet/blastfleet/internal/storage/cache"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/replica"
)

type taskResult struct {
	assign *assignMsg
	lines  [][]byte
	hits   []hitMeta
	// The task's distribution phase is [started, fetched), its compute
	// [fetched, ended); ended is zero if it never got to BLAST's end.
	started, fetched, ended time.Time
	err                     error
}

func (r *taskResult) blastSeconds() float64 { return r.ended.Sub(r.fetched).Seconds() }

type worker struct {
	cfg   *Config
	tr    transport.Transport
	rank  int
	db    *manifest.Manifest
	cache *cache.Cache
	dir   string // cache directory: shard files and group alias files
	tmp   string // query files
	// replicas are the database's other stores that hold its build,
	// checked at setup (openReplicas); with any, the cache reads through
	// reads, which spreads a file's pieces over the primary and them and
	// skips a hot spot (package replica).
	replicas []NamedStore
	reads    *replica.Set
	readsAt  []replica.Stats // the counts last sent to /metrics
	// ordinals maps, per shard, a subject id as BLAST prints it to the
	// subject's ordinal in the unsharded database.
	ordinals map[int]map[string]int64
	// subjectIDs maps, per shard, an ordinal to its subject's id
	// (regenerations).
	subjectIDs map[int]map[int64][]string
	aliases    map[int]string
	filtered   *dbStats // the database's statistics under the taxid filter, once read
	taxTable   taxfilter.Table
	taxPlans   map[int]taxfilter.Plan
	seqids     *seqidState // the sequence id list, once read
	pace       pace        // how long BLAST takes here, for task deadlines

	held    map[int][][]byte // task -> line texts
	writes  map[writeKey]*pendingWrite
	results chan taskResult
	cancel  context.CancelFunc // of the running task
	clock   *clock
	sum     RankSummary
	metrics *enginemetrics.Rank
	asked   time.Time   // when this worker last asked for work
	cacheAt cache.Stats // the cache's counts last sent to /metrics

	// Between two tasks a worker first does its duties (collective writes,
	// query-sync barriers); a task assigned meanwhile waits.
	duties   []*duty
	deferred *assignMsg
	colls    map[int]*collState // collective id -> what came in
	released map[int]bool       // query-sync barriers that ended
}

func runWorker(ctx context.Context, cfg *Config, tr transport.Transport) error {
	metrics := cfg.Metrics.Rank(tr.Rank(), "worker")
	w := &worker{cfg: cfg, tr: tr, rank: tr.Rank(), clock: newClock(metrics), metrics: metrics, ordinals: map[int]map[string]int64{},
		subjectIDs: map[int]map[int64][]string{},
		aliases:    map[int]string{}, held: map[int][][]byte{}, writes: map[writeKey]*pendingWrite{},
		results: make(chan taskResult, 1), colls: map[int]*collState{}, released: map[int]bool{}}
	w.sum.Rank, w.sum.Role = w.rank, "worker"
	defer w.cleanup()
	var early []transport.Message
	for setup := false; !setup; {
		msg, ok := <-tr.Recv()
		if !ok {
			return fmt.Errorf("rank %d: transport closed before setup", w.rank)
		}
		e, err := decode(msg.Data)
		if err != nil {
			return err
		}
		if e.Setup == nil {
			// A peer's piece can overtake the master's setup.
			early = append(early, msg)
			continue
		}
		if e.Setup.Error != "" {
			return w.stop(false)
		}
		setup = true
	}
	if err := w.setup(ctx); err != nil {
		// Report it as a failed task so the master aborts with the reason.
		_ = tr.Send(0, encode(&envelope{Failed: &failedMsg{Task: -1, Error: err.Error()}}))
		return w.waitStop(ctx, err)
	}
	w.clock.since("setup", w.clock.start)
	w.asked = time.Now()
	if err := tr.Send(0, encode(&envelope{Hello: &helloMsg{Cached: w.cachedShards(), Host: hostName()}})); err != nil {
		return err
	}
	for _, msg := range early {
		if done, err := w.handle(ctx, msg); done || err != nil {
			return err
		}
	}
	return w.loop(ctx)
}

func (w *worker) setup(ctx context.Context) error {
	if w.cfg.Sim != nil {
		// Nothing to fetch: the model holds the database's description.
		return nil
	}
	db, dbStore, err := openDatabase(ctx, w.cfg)
	if err != nil {
		return err
	}
	w.db = db
	var skipped []error
	w.replicas, skipped = openReplicas(ctx, w.cfg, db)
	logReplicas(w.cfg, w.replicas, skipped)
	// The master decides the groups (decompose.go); this checks the cache
	// can hold every shard, as the master's check does.
	if _, err = shardGroups(w.db, w.cfg.GroupBytes, w.cfg.CacheBytes); err != nil {
		return err
	}
	w.dir = filepath.Join(w.cfg.CacheDir, cacheName(w.db), fmt.Sprintf("rank-%d", w.rank))
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return fmt.Errorf("--cache-dir: %w", err)
	}
	if w.cache, err = cache.New(w.dir, w.cfg.CacheBytes, dbStore, w.db); err != nil {
		return fmt.Errorf("shard cache: %w", err)
	}
	if len(w.replicas) > 0 {
		sources := []replica.Source{{Name: w.cfg.Database, Store: dbStore}}
		for _, r := range w.replicas {
			sources = append(sources, replica.Source{Name: r.Location, Store: r.Files})
		}
		w.reads = replica.New(sources, replica.Options{Log: w.cfg.Log.WithName("replicas").WithValues("rank", w.rank)})
		w.cache.UseReplicas(w.reads)
	}
	// Under the cache directory, not /tmp: a rank killed outright leaves it
	// behind, and the cache directory is the pod's (or the test's) to clear.
	if w.tmp, err = os.MkdirTemp(w.cfg.CacheDir, fmt.Sprintf("work-rank-%d-", w.rank)); err != nil {
		return fmt.Errorf("--cache-dir: %w", err)
	}
	return nil
}

func (w *worker) cleanup() {
	if w.tmp != "" {
		os.RemoveAll(w.tmp)
	}
}

// cachedShards lists the shards the worker caches; under simulate, every
// shard.
func (w *worker) cachedShards() []int {
	if w.cfg.Sim != nil {
		all := make([]int, w.cfg.Sim.Model.Database().Shards())
		for s := range all {
			all[s] = s
		}
		return all
	}
	return w.cache.Cached()
}

func (w *worker) loop(ctx context.Context) error {
	for {
		// Time waiting for other ranks inside a duty is the sync phase.
		waitStart, blocked := time.Now(), w.blocked()
		select {
		case <-ctx.Done():
			// Told to stop: the master still wants this rank's account.
			return w.stopped(ctx.Err())
		case r := <-w.results:
			if err := w.finishTask(ctx, r); err != nil {
				return err
			}
		case msg, ok := <-w.tr.Recv():
			if blocked {
				w.clock.since("sync", waitStart)
			}
			if !ok {
				return fmt.Errorf("rank %d: transport closed", w.rank)
			}
			done, err := w.handle(ctx, msg)
			if done || err != nil {
				return err
			}
		}
	}
}

func (w *worker) handle(ctx context.Context, msg transport.Message) (done bool, err error) {
	e, err := decode(msg.Data)
	if err != nil {
		return true, err
	}
	switch {
	case e.Assign != nil:
		if len(w.duties) > 0 {
			w.deferred = e.Assign
			return false, nil
		}
		w.start(ctx, e.Assign)
	case e.Contribute != nil:
		return false, w.contribute(ctx, e.Contribute)
	case e.Piece != nil:
		return false, w.addPiece(ctx, e.Piece)
	case e.Write != nil:
		k := writeKey{e.Write.Unit, e.Write.Write}
		w.pendingWrite(k).order = e.Write
		return false, w.maybeWrite(ctx, k)
	case e.Coll != nil:
		return false, w.addColl(ctx, e.Coll)
	case e.CollPiece != nil:
		w.coll(e.CollPiece.ID).add(e.CollPiece.Pieces)
		return false, w.advance(ctx)
	case e.Sync != nil && e.Sync.Release:
		w.released[e.Sync.ID] = true
		return false, w.advance(ctx)
	case e.Sync != nil:
		return false, w.addDuty(ctx, &duty{syncID: e.Sync.ID})
	case e.Release != nil:
		for _, t := range e.Release.Tasks {
			delete(w.held, t)
		}
	case e.Stop != nil:
		return true, w.stop(false)
	}
	return false, nil
}

// start runs a task in the background so the loop keeps serving writes.
func (w *worker) start(ctx context.Context, a *assignMsg) {
	w.metrics.QueueWait(time.Since(w.asked).Seconds())
	tctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	run := w.runTask
	switch {
	case w.cfg.Sim != nil:
		run = w.runSimTask
	case a.Ties:
		run = w.runTieTask
	case a.Regen != nil:
		run = w.runRegenTask
	}
	w.pollBusy(true)
	go func() { w.results <- run(tctx, a) }()
}

// olderBLAST says, when this site's BLAST+ is older than the one that
// built the database, that a refusal here may be this site's alone (an
// option newer than its BLAST+), not the search's; "" otherwise.
func (w *worker) olderBLAST(ctx context.Context) string {
	here, err := blast.Version(ctx, w.cfg.Program.Command())
	if err != nil || !blast.OlderVersion(here, w.db.BlastVersion) {
		return ""
	}
	return fmt.Sprintf("this site's BLAST+ %s is older than %s, which built the database: the refusal may be this site's alone, so this partition stops and the campaign goes on elsewhere",
		here, w.db.BlastVersion)
}

func (w *worker) finishTask(ctx context.Context, r taskResult) error {
	w.cancel()
	w.cancel = nil
	w.pollBusy(false)
	if !r.ended.IsZero() {
		w.clock.interval("distribution", r.started, r.fetched)
		phase := "compute"
		if r.assign.Regen != nil {
			phase = "regenerate"
		}
		w.clock.interval(phase, r.fetched, r.ended)
	}
	w.syncCacheMetrics()
	// Reporting the task (done or failed) is asking for the next.
	w.asked = time.Now()
	if r.err != nil && ctx.Err() != nil {
		// Told to stop: the task died of it, which is no failure of the
		// chunk's; the master hears the stop, not a failed task.
		return w.stopped(ctx.Err())
	}
	if r.err != nil {
		f := &failedMsg{Task: r.assign.Task, Error: r.err.Error(), Unavailable: objstore.Unavailable(r.err)}
		var xe *blast.ExitError
		if errors.As(r.err, &xe) {
			f.ExitCode, f.Signal, f.StderrTail = xe.ExitCode, xe.Signal, xe.StderrTail
			// An argument error may be the search's (every chunk fails
			// alike) or this block's: BLAST's answer on a one-sequence
			// database of its own tells which.
			// Only BLAST's own refusal: a check that cannot run here (no
			// room, no makeblastdb) says nothing of the search.
			if xe.UsageError() && blast.Refuses(blast.Preflight(ctx, w.cfg.Program, w.cfg.Options)) {
				if older := w.olderBLAST(ctx); older != "" {
					f.Site = true
					f.Error += " (" + older + ")"
				} else {
					f.Config = true
					f.Error += " (BLAST+ refuses the search's options on any query: no retry can help)"
				}
			}
		}
		if err := w.tr.Send(0, encode(&envelope{Failed: f})); err != nil {
			return err
		}
		return w.advance(ctx)
	}
	blastSeconds := r.blastSeconds()
	w.sum.Tasks++
	w.sum.BlastSeconds += blastSeconds
	w.metrics.Task(string(w.cfg.Program), blastSeconds)
	// Sending the hits (and, under master-writing, the lines) is S3aSim's
	// gather.
	t := time.Now()
	d := &doneMsg{Task: r.assign.Task, Hits: r.hits, Cached: w.cachedShards(), BlastSeconds: blastSeconds}
	if w.cfg.Strategy.Flow() == output.ToMaster {
		d.Lines = r.lines
	} else {
		w.held[r.assign.Task] = r.lines
	}
	err := w.tr.Send(0, encode(&envelope{Done: d}))
	w.clock.since("gather", t)
	if err != nil {
		return err
	}
	// Between two tasks: the duties that came in meanwhile.
	return w.advance(ctx)
}

func (w *worker) runTask(ctx context.Context, a *assignMsg) (r taskResult) {
	r.assign = a
	if err := injectedFailure(a.IDs); err != nil {
		r.err = err
		return r
	}
	r.started = time.Now()
	ordinals, release, err := w.acquireShards(ctx, a.Shards, true)
	if err != nil {
		r.err = err
		return r
	}
	defer release()
	db, err := w.alias(ctx, a.Group, a.Shards)
	if err != nil {
		r.err = err
		return r
	}
	plan, err := w.taxPlan(a.Group, a.Shards)
	if err != nil {
		r.err = err
		return r
	}
	if w.seqids != nil {
		sp, err := w.seqidPlan(a.Group, a.Shards)
		if err != nil {
			r.err = err
			return r
		}
		if plan.Skip = sp.skip; !sp.skip {
			plan.Options = append(slices.Clone(plan.Options), sp.option)
		}
	}
	if plan.Skip {
		// The filter keeps nothing of this group: no hits.
		r.fetched, r.ended = time.Now(), time.Now()
		return r
	}
	qpath := filepath.Join(w.tmp, fmt.Sprintf("block-%d.fa", a.Block))
	if err := os.WriteFile(qpath, a.FASTA, 0o644); err != nil {
		r.err = fmt.Errorf("writing query block: %w", err)
		return r
	}
	defer os.Remove(qpath)
	r.fetched = time.Now()
	limits := w.cfg.taskLimits()
	timeout := w.pace.timeout(limits, len(a.FASTA))
	out, err := blast.Run(ctx, blast.Invocation{Program: w.cfg.Program, DB: db, Query: qpath,
		Format: w.cfg.Format, MaxTargetSeqs: w.cfg.shardTargetSeqs(w.db.Sequences, a.Groups),
		Evalue: w.cfg.Evalue, Threads: cmp.Or(a.Threads, w.cfg.Threads), Options: plan.Options, BatchLetters: a.Batch,
		Timeout: timeout, MaxOutput: limits.MaxOutput, TaxDBDir: w.taxDBDir()})
	r.ended = time.Now()
	if err != nil {
		r.err = fmt.Errorf("block %d (queries %s..%s, %d bytes): %w", a.Block, a.IDs[0], a.IDs[len(a.IDs)-1], len(a.FASTA), err)
		return r
	}
	w.pace.observe(len(a.FASTA), r.ended.Sub(r.fetched))
	lines, err := blast.Parse(out, w.cfg.Format)
	if err != nil {
		r.err = err
		return r
	}
	r.lines = make([][]byte, len(lines))
	r.hits = make([]hitMeta, len(lines))
	q := 0
	for i, l := range lines {
		for q < len(a.IDs) && a.IDs[q] != l.Query {
			q++
		}
		if q == len(a.IDs) {
			r.err = fmt.Errorf("blast output line %d: query %q is not in the block (or out of order)", i+1, l.Query)
			return r
		}
		ord, in, ok := lookup(ordinals, l.Subject)
		if !ok {
			r.err = fmt.Errorf("blast output line %d: subject %q is not in the ids files of shards %v", i+1, l.Subject, a.Shards)
			return r
		}
		r.lines[i] = l.Text
		r.hits[i] = hitMeta{Query: int32(q), Evalue: l.Evalue, Bitscore: l.Bitscore, Score: l.Score,
			SLen: l.SLen, Ordinal: ord, Size: int32(len(l.Text)), Shard: int32(a.Shards[in])}
	}
	return r
}

// ordinalKey is how ids files' ids and BLAST's sseqids are compared:
// without case, as makeblastdb compares ids (it refuses ids equal but for
// case), because a -parse_seqids database upper-cases an accession-shaped
// local id ("rnd00158" is printed "RND00158").
func ordinalKey(id string) string { return strings.ToUpper(id) }

// lookup finds a subject's ordinal by the id BLAST printed; maps are keyed
// by ordinalKey. A -parse_seqids database may print a plain FASTA id as a
// typed one (an id shaped like an accession, "abc00026", comes out as
// "gb|abc00026|"), so the parts of a typed id are tried too.
// It also says which map knew it.
func lookup(maps []map[string]int64, id string) (int64, int, bool) {
	find := func(key string) (int64, int, bool) {
		for i, m := range maps {
			if o, ok := m[ordinalKey(key)]; ok {
				return o, i, true
			}
		}
		return 0, 0, false
	}
	if o, i, ok := find(id); ok {
		return o, i, true
	}
	for _, part := range strings.Split(id, "|") {
		if part == "" || part == id {
			continue
		}
		if o, i, ok := find(part); ok {
			return o, i, true
		}
	}
	return 0, 0, false
}

// shardOrdinals loads a shard's ids file once.
func (w *worker) shardOrdinals(s int) (map[string]int64, error) {
	if m, ok := w.ordinals[s]; ok {
		return m, nil
	}
	sh := w.db.Shards[s]
	f, err := os.Open(filepath.Join(w.dir, sh.IDsFile))
	if err != nil {
		return nil, fmt.Errorf("shard %s: %w", sh.Name, err)
	}
	defer f.Close()
	m := make(map[string]int64, sh.Sequences)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		ord, id, ok := strings.Cut(sc.Text(), "\t")
		n, err := strconv.ParseInt(ord, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("shard %s: malformed line in %s: %q", sh.Name, sh.IDsFile, sc.Text())
		}
		m[ordinalKey(blast.NormalizeID(id))] = n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("shard %s: reading %s: %w", sh.Name, sh.IDsFile, err)
	}
	w.ordinals[s] = m
	return m, nil
}

func (w *worker) alias(ctx context.Context, g int, shards []int) (string, error) {
	if a, ok := w.aliases[g]; ok {
		return a, nil
	}
	filtered, err := w.filteredStats()
	if err == nil && filtered == nil {
		filtered, err = w.seqidStats(ctx)
	}
	if err != nil {
		return "", err
	}
	a, err := groupAlias(w.dir, w.db, g, shards, filtered)
	if err == nil {
		w.aliases[g] = a
	}
	return a, err
}

// filteredStats are the database's statistics under the search's taxid
// filter, from the database's taxid table (a common file, fetched with the
// first shard); nil without a filter.
func (w *worker) filteredStats() (*dbStats, error) {
	if w.filtered != nil {
		return w.filtered, nil
	}
	filter, err := taxfilter.FromOptions(w.cfg.Options)
	if err != nil || filter == nil {
		return nil, err
	}
	if w.db.TaxStats == "" {
		return nil, taxfilter.NoIndexError(w.db.Name)
	}
	f, err := os.Open(filepath.Join(w.dir, w.db.TaxStats))
	if err != nil {
		return nil, fmt.Errorf("taxid filter: %w", err)
	}
	defer f.Close()
	table, err := taxfilter.Read(f)
	if err != nil {
		return nil, fmt.Errorf("taxid filter: %w", err)
	}
	w.taxTable = table
	seqs, letters, err := table.Totals(filter)
	if err != nil {
		return nil, fmt.Errorf("taxid filter on database %s: %w", w.db.Name, err)
	}
	w.filtered = &dbStats{seqs, letters}
	return w.filtered, nil
}

// taxPlan is how group g is searched under the taxid filter (package
// taxfilter); without one, with the search's options. It follows alias,
// which reads the table.
func (w *worker) taxPlan(g int, shards []int) (taxfilter.Plan, error) {
	if w.filtered == nil {
		return taxfilter.Plan{Options: w.cfg.Options}, nil
	}
	if p, ok := w.taxPlans[g]; ok {
		return p, nil
	}
	filter, err := taxfilter.FromOptions(w.cfg.Options)
	if err != nil {
		return taxfilter.Plan{}, err
	}
	p, err := w.taxTable.Plan(filter, shards, w.cfg.Options)
	if err != nil {
		return p, err
	}
	if w.taxPlans == nil {
		w.taxPlans = map[int]taxfilter.Plan{}
	}
	w.taxPlans[g] = p
	return p, nil
}

// taxDBDir is where BLAST finds the taxonomy database: the cache
// directory, when the database ships one.
func (w *worker) taxDBDir() string {
	if w.db.HasTaxDB() {
		return w.dir
	}
	return ""
}
