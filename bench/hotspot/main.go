// Command hotspot reproduces the shape of CEFT-PVFS's figure 9 (issue
// 29) in two parts, against the same stores in one run: (a) one store,
// (b) that store made a hot spot, (c) two replicas, both healthy, and (d)
// two replicas, one made a hot spot. Every store is a MinIO server of its
// own behind a fault proxy whose link carries the same bandwidth (the
// stores are the bottleneck, as a real object store's per-connection
// throughput is); a hot spot's link is cut and its answers delayed.
//
// Staging (-staging): a worker with a cold shard cache stages every shard
// of a database. (a) and (b) stage through the store alone, as a worker
// without replicas does; (c) and (d) through a replica.Set with the
// engine's options, as a worker with --database-replica does. Each
// staging is a fresh cache directory and a fresh Set (a worker starting
// cold), every file checked against the manifest's SHA-256.
//
// Whole runs (-whole-run, wholerun.go): what CEFT-PVFS timed, the whole
// search. bin/blastfleet-engine works a campaign with cold caches,
// staging, searching with BLAST+ and committing its output.
//
// The setups of each part run interleaved in rounds (the order rotating),
// and the median per setup is reported as markdown; the run ends with the
// line `hot-spot slowdown: one store A x, replicated B x` (A = b/a, B =
// d/c) of the whole runs. `make bench-hotspot` runs both parts;
// docs/benchmarks.md holds one run's figures.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/blastfleet/blastfleet/internal/plan/shard"
	"github.com/blastfleet/blastfleet/internal/storage/cache"
	"github.com/blastfleet/blastfleet/internal/storage/dbcopy"
	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/internal/storage/replica"
	"github.com/blastfleet/blastfleet/test/support/faultproxy"
)

type options struct {
	minio      string
	work       string
	rounds     int
	shards     int
	shardMiB   float64
	linkMiB    float64
	hotKiB     float64
	hotLatency time.Duration
	staging    bool
	wholeRun   bool
	run        runOptions
}

func main() {
	var o options
	flag.StringVar(&o.minio, "minio", os.Getenv("BLASTFLEET_MINIO"), "the MinIO server binary (hack/install-minio.sh prints it)")
	flag.StringVar(&o.work, "work", "", "work directory (default: a temporary one, removed at the end)")
	flag.BoolVar(&o.staging, "staging", true, "measure cold-cache staging alone")
	flag.BoolVar(&o.wholeRun, "whole-run", true, "measure whole engine runs (staging, BLAST+, output): wholerun.go")
	flag.IntVar(&o.rounds, "rounds", 3, "staging rounds; the median per setup is reported")
	flag.IntVar(&o.shards, "shards", 3, "shards of the staging database")
	flag.Float64Var(&o.shardMiB, "shard-mib", 7.9, "MiB per shard of the staging database (its header file: long titles, short sequences)")
	// A hot spot as CEFT-PVFS made one: a disk kept busy by a loop of
	// synchronous 1 MB appends serves reads at a small fraction of its
	// throughput, each queued behind the writes. A twentieth of the link
	// and 100 ms per answer is that, on the stores' links.
	flag.Float64Var(&o.linkMiB, "link-mib", 20, "every store's link, MiB/s")
	flag.Float64Var(&o.hotKiB, "hot-kib", 1024, "a hot spot's link, KiB/s")
	flag.DurationVar(&o.hotLatency, "hot-latency", 100*time.Millisecond, "added to every answer of a hot spot")
	o.run.register()
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-hotspot:", err)
		os.Exit(1)
	}
}

// setup is one of figure 9's bars.
type setup struct {
	key, what string
	replicas  bool // read through a Set over both stores
	hot       int  // the store made a hot spot: 0 the primary, 1 the replica, -1 none
}

var setups = []setup{
	{"a", "one store", false, -1},
	{"b", "one store, a hot spot", false, 0},
	{"c", "two replicas", true, -1},
	{"d", "two replicas, one a hot spot", true, 1},
}

// rig is the two stores, each behind its fault proxy.
type rig struct {
	stores    [2]*server
	proxies   [2]*faultproxy.Proxy
	link, hot faultproxy.Faults
}

// hurt makes store hot a hot spot (-1: none) and gives the other its
// plain link.
func (r *rig) hurt(hot int) error {
	for j, p := range r.proxies {
		f := r.link
		if j == hot {
			f = r.hot
		}
		if err := p.SetFaults(f); err != nil {
			return err
		}
	}
	return nil
}

func run(o options) error {
	if o.minio == "" {
		return fmt.Errorf("-minio (or BLASTFLEET_MINIO) is needed: make bench-hotspot sets it")
	}
	work := o.work
	if work == "" {
		d, err := os.MkdirTemp("", "blastfleet-bench-hotspot-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	ctx := context.Background()
	rg := &rig{link: faultproxy.Faults{Bandwidth: int64(o.linkMiB * (1 << 20))},
		hot: faultproxy.Faults{Bandwidth: int64(o.hotKiB * (1 << 10)), AddedLatency: o.hotLatency}}
	for i := range rg.stores {
		// Bucket "replica" gives the whole runs' replica a location of
		// its own: the engine refuses a replica named like --database.
		s, err := startMinIO(o.minio, filepath.Join(work, fmt.Sprintf("minio-%d", i)), "blastdb", "replica")
		if err != nil {
			return err
		}
		defer s.stop()
		rg.stores[i] = s
		p, err := faultproxy.Start(s.endpoint(), uint64(i+1), rg.link)
		if err != nil {
			return err
		}
		defer p.Close()
		rg.proxies[i] = p
	}
	fmt.Printf("Every store's link %.0f MiB/s; a hot spot's %.0f KiB/s and +%s per answer.\n\n", o.linkMiB, o.hotKiB, o.hotLatency)
	if o.staging {
		if err := runStaging(ctx, o, work, rg); err != nil {
			return err
		}
	}
	if o.wholeRun {
		return runWhole(ctx, o, work, rg)
	}
	return nil
}

// runStaging times cold-cache staging alone in the four setups.
func runStaging(ctx context.Context, o options, work string, rg *rig) error {
	primary, err := rg.stores[0].bucket(rg.stores[0].host, "blastdb", "")
	if err != nil {
		return err
	}
	m, err := buildDatabase(ctx, o, work, primary)
	if err != nil {
		return err
	}
	direct1, err := rg.stores[1].bucket(rg.stores[1].host, "blastdb", "")
	if err != nil {
		return err
	}
	if _, err := dbcopy.Copy(ctx, primary, direct1, m.Build, dbcopy.Options{}); err != nil {
		return fmt.Errorf("replicating: %w", err)
	}
	var files [2]objstore.Store
	for i, s := range rg.stores {
		b, err := s.bucket(rg.proxies[i].Host, "blastdb", "")
		if err != nil {
			return err
		}
		if files[i], err = m.Files(b); err != nil {
			return err
		}
	}
	var size int64
	for _, sh := range m.Shards {
		for _, f := range sh.Files {
			size += f.Size
		}
	}
	fmt.Printf("## Replicated databases and hot spots: staging a cold shard cache\n\n")
	fmt.Printf("%d shards, %.1f MiB in all; every store's link %.0f MiB/s; a hot spot's %.0f KiB/s and +%s per answer; %d rounds, medians.\n\n",
		len(m.Shards), float64(size)/(1<<20), o.linkMiB, o.hotKiB, o.hotLatency, o.rounds)

	times := map[string][]time.Duration{}
	notes := map[string]string{}
	for round := 0; round < o.rounds; round++ {
		for i := range setups {
			su := setups[(i+round)%len(setups)]
			if err := rg.hurt(su.hot); err != nil {
				return err
			}
			took, note, err := stage(ctx, filepath.Join(work, "cache"), m, files, su.replicas)
			if err != nil {
				return fmt.Errorf("%s (%s), round %d: %w", su.key, su.what, round+1, err)
			}
			fmt.Fprintf(os.Stderr, "round %d %s (%s): %s %s\n", round+1, su.key, su.what, took.Round(time.Millisecond), note)
			times[su.key] = append(times[su.key], took)
			notes[su.key] = note
		}
	}
	med := map[string]float64{}
	fmt.Println("| setup | staging (median) | MiB/s | rounds | last round's reads |")
	fmt.Println("| --- | ---: | ---: | --- | --- |")
	for _, su := range setups {
		ts := times[su.key]
		med[su.key] = median(ts).Seconds()
		fmt.Printf("| (%s) %s | %.2f s | %.1f | %v | %s |\n", su.key, su.what, med[su.key],
			float64(size)/(1<<20)/med[su.key], seconds(ts), notes[su.key])
	}
	fmt.Println()
	fmt.Printf("two healthy replicas against one store (c/a): %.2fx\n", med["c"]/med["a"])
	fmt.Printf("two replicas, one a hot spot, against one healthy store (d/a): %.2fx\n", med["d"]/med["a"])
	fmt.Printf("staging alone, hot-spot slowdown: one store %.2f x, replicated %.2f x\n\n", med["b"]/med["a"], med["d"]/med["c"])
	return nil
}

// seconds lists durations in seconds, two decimals.
func seconds(ts []time.Duration) []string {
	var all []string
	for _, t := range ts {
		all = append(all, fmt.Sprintf("%.2f", t.Seconds()))
	}
	return all
}

// stage fills a fresh cache with every shard of m, from files[0] alone or
// through a Set over both, and says how long it took and, through a Set,
// what each store served.
func stage(ctx context.Context, dir string, m *manifest.Manifest, files [2]objstore.Store, replicas bool) (time.Duration, string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return 0, "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, "", err
	}
	c, err := cache.New(dir, 0, files[0], m)
	if err != nil {
		return 0, "", err
	}
	var set *replica.Set
	if replicas {
		set = replica.New([]replica.Source{{Name: "store-1", Store: files[0]}, {Name: "store-2", Store: files[1]}}, replica.Options{})
		c.UseReplicas(set)
	}
	start := time.Now()
	for _, sh := range m.Shards {
		if _, err := c.Acquire(ctx, sh.ID); err != nil {
			return 0, "", err
		}
		c.Release(sh.ID)
	}
	took := time.Since(start)
	note := "store-1 only"
	if set != nil {
		note = ""
		for _, st := range set.Stats() {
			if note != "" {
				note += "; "
			}
			note += fmt.Sprintf("%s %.1f MiB, %d skips", st.Name, float64(st.Bytes)/(1<<20), st.SkipCount)
		}
	}
	return took, note, nil
}

func median(ts []time.Duration) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// buildDatabase shards a synthetic nucleotide database into st: records
// with 8000-letter titles and 60-base sequences, so each shard is mostly
// its header file, about shardMiB, and makeblastdb takes a moment.
func buildDatabase(ctx context.Context, o options, work string, st objstore.Store) (*manifest.Manifest, error) {
	const titleLen, seqLen = 8000, 60
	records := int(o.shardMiB*(1<<20)) / (titleLen + 40) * o.shards
	r := rand.New(rand.NewPCG(29, 9))
	var b bytes.Buffer
	const letters, bases = "abcdefghijklmnopqrstuvwxyz ", "ACGT"
	for i := 0; i < records; i++ {
		fmt.Fprintf(&b, ">rec%06d ", i)
		for j := 0; j < titleLen; j++ {
			b.WriteByte(letters[r.IntN(len(letters))])
		}
		b.WriteByte('\n')
		for j := 0; j < seqLen; j++ {
			b.WriteByte(bases[r.IntN(len(bases))])
		}
		b.WriteByte('\n')
	}
	in := filepath.Join(work, "db.fa")
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		return nil, err
	}
	m, err := shard.Build(ctx, shard.Options{Input: in, Type: manifest.Nucleotide, Shards: o.shards, Output: st, Name: "hotspot", WorkDir: work})
	if err != nil {
		return nil, fmt.Errorf("sharding: %w", err)
	}
	return m, nil
}

// server is a MinIO server of the bench's own.
type server struct {
	cmd        *exec.Cmd
	exited     chan struct{}
	host       string
	user, pass string
}

func (s *server) endpoint() string { return "http://" + s.host }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startMinIO starts a server on loopback with data in dir and a bucket
// buckets, and waits until it is live.
func startMinIO(bin, dir string, buckets ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	console, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{host: fmt.Sprintf("127.0.0.1:%d", port), user: "bench", pass: "bench-hotspot-secret", exited: make(chan struct{})}
	s.cmd = exec.Command(bin, "server", "--address", s.host, "--console-address", fmt.Sprintf("127.0.0.1:%d", console), "--quiet", dir)
	s.cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+s.user, "MINIO_ROOT_PASSWORD="+s.pass, "MINIO_UPDATE=off", "MINIO_BROWSER=off")
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	s.cmd.Stdout, s.cmd.Stderr = &out, &out
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := client.Get(s.endpoint() + "/minio/health/live")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("MinIO exited: %s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("MinIO at %s not live after 30s", s.host)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mc, err := minio.New(s.host, &minio.Options{Creds: credentials.NewStaticV4(s.user, s.pass, ""), Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
	if err != nil {
		s.stop()
		return nil, err
	}
	for _, b := range buckets {
		if err := mc.MakeBucket(context.Background(), b, minio.MakeBucketOptions{Region: "us-east-1"}); err != nil {
			s.stop()
			return nil, fmt.Errorf("making bucket %s: %w", b, err)
		}
	}
	return s, nil
}

// bucket is the server's bucket under prefix, reached at host (the server or a
// proxy in front of it).
func (s *server) bucket(host, bucket, prefix string) (objstore.Store, error) {
	return objstore.NewS3(objstore.S3Config{Endpoint: host, PathStyle: true, Region: "us-east-1", AccessKey: s.user, SecretKey: s.pass}, bucket, prefix)
}

func (s *server) stop() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}
