package main

// Way 6 of the synthetic workloads (issue 28, item 5): the campaign
// through kubectl apply, on the local stack `make demo` uses
// (blastfleet dev up: kube-apiserver and etcd, MinIO, the operator, the
// local runner that runs MPIJob partitions as mpirun processes). Each
// workload's database is a BlastDatabase sharded from its FASTA by the
// stack (not timed, once per database); each round applies a
// SearchCampaign and times it from kubectl apply to phase Complete, then
// fetches the result with blastfleet results --from-secret.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/devstack"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

const (
	wCampaign = "6. campaign through kubectl apply (1 partition, 2 slots)"
	// The campaign's partition: one worker of two slots, so mpirun runs
	// a master and two searching ranks, as way 5 does.
	campaignWorkers, campaignSlots = 1, 2
	benchNamespace                 = "default"
	benchInputs                    = "bench-inputs"    // uploaded FASTA, under the stack's bucket
	benchCampaigns                 = "bench-campaigns" // the campaigns' ledgers and results
	benchDatabases                 = "bench-databases" // the databases' shards
)

// stack is the local stack way 6 runs on, brought up once per bench run.
type stack struct {
	cli       string   // bin/blastfleet
	dir       string   // the stack's directory
	env       []string // this process's environment with dev env's exports
	st        *devstack.State
	kc        client.Client
	store     objstore.Store // the stack's bucket
	dbs       map[string]string
	names     []string // the campaigns and databases applied: their runner directories go at cleanup
	campaigns []string
	idleRate  float64 // the stack's CPU seconds per second before the bench's campaigns, -1 unknown
}

// upStack runs blastfleet dev up (a running stack is left as it is) and
// reads blastfleet dev env.
func upStack(ctx context.Context, cli string, logf func(string, ...any)) (*stack, error) {
	logf("way 6: blastfleet dev up (the local stack of make demo; it stays up)")
	up := exec.CommandContext(ctx, cli, "dev", "up")
	up.Stdout, up.Stderr = os.Stderr, os.Stderr
	if err := up.Run(); err != nil {
		return nil, fmt.Errorf("blastfleet dev up (KUBEBUILDER_ASSETS and BLASTFLEET_MINIO: bench/engine.sh sets them; -kubectl=false skips way 6): %w", err)
	}
	out, err := exec.CommandContext(ctx, cli, "dev", "env").Output()
	if err != nil {
		return nil, fmt.Errorf("blastfleet dev env: %w", err)
	}
	s := &stack{cli: cli, env: os.Environ(), dbs: map[string]string{}}
	kubeconfig := ""
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(l, "export "), "=")
		if !ok {
			continue
		}
		if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			v = strings.ReplaceAll(v[1:len(v)-1], `'\''`, `'`)
		}
		s.env = append(s.env, k+"="+v)
		if k == "KUBECONFIG" {
			kubeconfig = v
		}
	}
	if kubeconfig == "" {
		return nil, fmt.Errorf("blastfleet dev env printed no KUBECONFIG: %s", out)
	}
	s.dir = filepath.Dir(kubeconfig)
	if s.st, err = devstack.ReadState(s.dir); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	if s.kc, err = client.New(cfg, client.Options{Scheme: kubescheme.New()}); err != nil {
		return nil, err
	}
	if s.store, err = s.st.Store(""); err != nil {
		return nil, err
	}
	// What the idle stack (etcd, kube-apiserver, MinIO, Prometheus, the
	// operator) burns anyway, included in way 6's CPU.
	c0, t0 := s.cpu(), time.Now()
	time.Sleep(5 * time.Second)
	if c1 := s.cpu(); c0 >= 0 && c1 >= 0 {
		s.idleRate = (c1 - c0) / time.Since(t0).Seconds()
	} else {
		s.idleRate = -1
	}
	return s, nil
}

// cpu is the CPU seconds (user+sys) of the stack's processes so far: the
// supervisor with every child it has reaped (the local runner's
// launchers, so mpirun, the engine ranks and BLAST; the Jobs' processes)
// and its live components. -1 when /proc does not say.
func (s *stack) cpu() float64 {
	pids := []int{s.st.Supervisor.PID}
	for _, c := range s.st.Components {
		pids = append(pids, c.PID)
	}
	var ticks int64
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return -1
		}
		// Fields 14-17 (utime, stime, cutime, cstime) follow the command
		// name, which is in parentheses and may hold spaces.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 15 {
			return -1
		}
		for _, x := range f[11:15] {
			n, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return -1
			}
			ticks += n
		}
	}
	return float64(ticks) / 100 // USER_HZ
}

// kubectl runs kubectl against the stack, with stdin.
func (s *stack) kubectl(ctx context.Context, stdin []byte, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = s.env
	cmd.Stdin = bytes.NewReader(stdin)
	return cmd
}

// apply is kubectl apply -f - of obj, timed.
func (s *stack) apply(ctx context.Context, obj client.Object) (*result, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return timed(s.kubectl(ctx, data, "apply", "-f", "-"))
}

func (s *stack) storage(prefix string) v1alpha1.ObjectStorage {
	return v1alpha1.ObjectStorage{Endpoint: s.st.MinIO.Endpoint, Bucket: s.st.MinIO.Bucket, Prefix: prefix,
		CredentialsSecretRef: &v1alpha1.CredentialsSecretRef{Name: "minio-credentials"}}
}

func (s *stack) put(ctx context.Context, file, key string) error {
	return objstore.PutFile(ctx, s.store, key, file)
}

// deletePrefix deletes every object under prefix (a folder: with its
// trailing slash).
func (s *stack) deletePrefix(ctx context.Context, prefix string) error {
	infos, err := s.store.List(ctx, prefix)
	if err != nil {
		return err
	}
	for _, in := range infos {
		if err := s.store.Delete(ctx, in.Key); err != nil {
			return err
		}
	}
	return nil
}

// database is the Ready BlastDatabase of a workload's database FASTA,
// sharded by the stack into shards shards (not timed; once per FASTA).
func (s *stack) database(ctx context.Context, b *bench, w workload) (string, error) {
	sum := sha256.Sum256(readBytes(b.dbFA))
	name := fmt.Sprintf("bench-%s-%d-%s", w.key, b.o.shards, hex.EncodeToString(sum[:4]))
	if s.dbs[name] != "" {
		return name, nil
	}
	s.dbs[name] = name
	s.names = append(s.names, name)
	b.logf("%s: way 6: the database as a BlastDatabase %s (%d shards; not timed)", w.name, name, b.o.shards)
	key := benchInputs + "/" + name + "/db.fa"
	if err := s.put(ctx, b.dbFA, key); err != nil {
		return "", fmt.Errorf("uploading %s: %w", b.dbFA, err)
	}
	count, par := int32(b.o.shards), int32(2)
	db := &v1alpha1.BlastDatabase{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "BlastDatabase"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: benchNamespace, Labels: map[string]string{"app.kubernetes.io/component": "bench"}},
		Spec: v1alpha1.BlastDatabaseSpec{Source: v1alpha1.ObjectReference{Key: key}, Type: v1alpha1.DatabaseType(w.dbtype),
			Shards: v1alpha1.Sharding{Count: &count}, Parallelism: &par, Storage: s.storage(benchDatabases)},
	}
	if _, err := s.apply(ctx, db); err != nil {
		return "", err
	}
	t := time.Now()
	for {
		if err := s.kc.Get(ctx, client.ObjectKeyFromObject(db), db); err != nil {
			return "", err
		}
		switch db.Status.Phase {
		case v1alpha1.DatabaseReady:
			b.logf("  Ready in %.1f s", time.Since(t).Seconds())
			return name, nil
		case v1alpha1.DatabaseFailed:
			return "", fmt.Errorf("BlastDatabase %s failed: %s", name, conditionMessages(db.Status.Conditions))
		}
		if time.Since(t) > 30*time.Minute {
			return "", fmt.Errorf("BlastDatabase %s is not Ready after 30 minutes (phase %q)", name, db.Status.Phase)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func conditionMessages(cs []metav1.Condition) string {
	var m []string
	for _, c := range cs {
		if c.Message != "" {
			m = append(m, c.Type+": "+c.Message)
		}
	}
	return strings.Join(m, "; ")
}

// campaign is way 6 for a workload whose queries were uploaded to
// queriesKey: a SearchCampaign searching what way 4 searches.
func (s *stack) campaign(b *bench, w workload, db, queriesKey string) func(ctx context.Context, tag string) (*result, error) {
	return func(ctx context.Context, tag string) (*result, error) {
		name := fmt.Sprintf("bench-%s-%s-%s", w.name, tag, time.Now().UTC().Format("150405"))
		c := &v1alpha1.SearchCampaign{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "SearchCampaign"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: benchNamespace, Labels: map[string]string{"app.kubernetes.io/component": "bench"}},
			Spec: v1alpha1.SearchCampaignSpec{
				DatabaseRef:   v1alpha1.DatabaseReference{Name: db},
				Queries:       v1alpha1.Queries{ObjectReference: v1alpha1.ObjectReference{Key: queriesKey}},
				Program:       v1alpha1.Program(w.program),
				Outfmt:        outfmt,
				MaxTargetSeqs: maxTarget,
				// BLAST+'s own batches (blastn: BATCH_SIZE per task, what
				// way 1 runs with), as the engine's default in way 4.
				Batching:   "blast",
				Partitions: v1alpha1.Partitions{Count: 1, Workers: campaignWorkers, SlotsPerWorker: campaignSlots},
				Output:     s.storage(benchCampaigns),
			},
		}
		if w.task != "" {
			c.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "task", Value: w.task}}
		}
		s.names = append(s.names, name)
		s.campaigns = append(s.campaigns, name)
		c0 := s.cpu()
		t := time.Now()
		var tl timeline
		wctx, stopWatch := context.WithCancel(ctx)
		defer stopWatch()
		go tl.watch(wctx, s.kc, benchNamespace, name, t)
		r, err := s.apply(ctx, c)
		if err != nil {
			return nil, err
		}
		for {
			if err := s.kc.Get(ctx, client.ObjectKeyFromObject(c), c); err != nil {
				return nil, err
			}
			if c.Status.Phase == v1alpha1.CampaignComplete {
				break
			}
			if c.Status.Phase == v1alpha1.CampaignFailed {
				return nil, fmt.Errorf("SearchCampaign %s failed: %s", name, conditionMessages(c.Status.Conditions))
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		r.Wall = time.Since(t).Seconds()
		stopWatch()
		tl.mark(msComplete, r.Wall)
		// The partition ends on its own once no chunk is left; its CPU
		// reaches the supervisor when the runner has reaped it.
		if err := s.waitProcesses(ctx, name); err != nil {
			return nil, err
		}
		if c1 := s.cpu(); c0 >= 0 && c1 >= 0 {
			r.CPU += c1 - c0
		} else {
			r.CPU = -1
		}
		out := b.outPath(tag)
		os.Remove(out)
		fetch := exec.CommandContext(ctx, s.cli, "results", name, "--from-secret", "-o", out)
		fetch.Env = s.env
		if msg, err := fetch.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("blastfleet results %s: %w: %s", name, err, msg)
		}
		if r.out, err = os.ReadFile(out); err != nil {
			return nil, err
		}
		r.Chunks = c.Status.Chunks.Total
		if err := s.timeline(ctx, &tl, c.Status.Location, t); err != nil {
			return nil, err
		}
		r.Timeline = tl.seconds()
		b.logf("  timeline (s after kubectl apply): %s", &tl)
		return r, s.deleteCampaign(ctx, c)
	}
}

// timeline adds the run records' milestones of the campaign whose ledger
// is at loc, a location in the stack's bucket.
func (s *stack) timeline(ctx context.Context, tl *timeline, loc string, start time.Time) error {
	prefix, ok := strings.CutPrefix(loc, "s3://"+s.st.MinIO.Bucket+"/")
	if !ok {
		return fmt.Errorf("campaign location %q is not in the stack's bucket %s", loc, s.st.MinIO.Bucket)
	}
	st, err := objstore.Prefixed(s.store, strings.TrimSuffix(prefix, "/"))
	if err != nil {
		return err
	}
	return tl.runs(ctx, st, start)
}

// waitProcesses waits until the local runner runs nothing of the campaign
// (its planning Job and its partition), as its state file says.
func (s *stack) waitProcesses(ctx context.Context, campaign string) error {
	t := time.Now()
	for {
		st, err := devstack.ReadState(s.dir)
		if err != nil {
			return err
		}
		busy := false
		for _, p := range st.Runner.Processes {
			busy = busy || strings.HasPrefix(p.Name, campaign)
		}
		if !busy {
			return nil
		}
		if time.Since(t) > 2*time.Minute {
			return fmt.Errorf("campaign %s is Complete but its partition still runs after 2 minutes", campaign)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// deleteCampaign deletes a campaign (its partitions go with it) and its
// ledger and result in MinIO.
func (s *stack) deleteCampaign(ctx context.Context, c *v1alpha1.SearchCampaign) error {
	if err := client.IgnoreNotFound(s.kc.Delete(ctx, c, client.PropagationPolicy(metav1.DeletePropagationBackground))); err != nil {
		return err
	}
	return s.deleteLocation(ctx, c.Status.Location)
}

// deleteLocation deletes the objects under an s3://bucket/prefix location
// of the stack's bucket.
func (s *stack) deleteLocation(ctx context.Context, loc string) error {
	prefix, ok := strings.CutPrefix(loc, "s3://"+s.st.MinIO.Bucket+"/")
	if !ok || prefix == "" {
		return nil
	}
	return s.deletePrefix(ctx, strings.TrimSuffix(prefix, "/")+"/")
}

// cleanup deletes the bench's campaigns and databases (their ledgers,
// results and shards too) and inputs; the stack stays up.
func (s *stack) cleanup(ctx context.Context) error {
	for _, name := range s.campaigns { // one an interrupt left running
		c := &v1alpha1.SearchCampaign{}
		if err := s.kc.Get(ctx, client.ObjectKey{Namespace: benchNamespace, Name: name}, c); err == nil {
			if err := client.IgnoreNotFound(s.kc.Delete(ctx, c, client.PropagationPolicy(metav1.DeletePropagationBackground))); err != nil {
				return err
			}
			if err := s.waitProcesses(ctx, name); err != nil {
				return err
			}
			// Its ledger: s3://<bucket>/<prefix>/<namespace>/<name>/.
			if err := s.deletePrefix(ctx, benchCampaigns+"/"+benchNamespace+"/"+name+"/"); err != nil {
				return err
			}
		}
	}
	for name := range s.dbs {
		db := &v1alpha1.BlastDatabase{}
		if err := s.kc.Get(ctx, client.ObjectKey{Namespace: benchNamespace, Name: name}, db); err == nil {
			if err := client.IgnoreNotFound(s.kc.Delete(ctx, db, client.PropagationPolicy(metav1.DeletePropagationBackground))); err != nil {
				return err
			}
			if err := s.deleteLocation(ctx, db.Status.Location); err != nil {
				return err
			}
		}
	}
	// The local runner's logs and emptyDir stand-ins of what the bench
	// ran (runner/<namespace>/<Job or MPIJob>/): their objects are gone.
	for _, name := range s.names {
		dirs, _ := filepath.Glob(filepath.Join(s.st.Runner.WorkDir, benchNamespace, name+"-*"))
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	}
	return s.deletePrefix(ctx, benchInputs+"/")
}

// campaignNote says what way 6 measured.
func (s *stack) campaignNote(rs []*result, shards int) string {
	chunks := "?"
	if len(rs) > 0 {
		chunks = fmt.Sprint(rs[0].Chunks)
	}
	cpu := "its CPU is that of the whole stack from kubectl apply until the partition's processes were reaped: the supervisor " +
		"with what it reaped (the planning Job, the launcher's mpirun, the engine ranks, BLAST+) and etcd, kube-apiserver, MinIO, " +
		"Prometheus and the operator, plus kubectl's own"
	if s.idleRate >= 0 {
		cpu += fmt.Sprintf(" (the idle stack burns %.3f CPU s per s, included)", s.idleRate)
	} else {
		cpu = "its CPU could not be read from /proc (-)"
	}
	return fmt.Sprintf("Way 6 is a SearchCampaign applied with kubectl to the local stack (blastfleet dev up) and timed from kubectl apply to phase Complete "+
		"(the operator reads the ledger every 3 s); 1 partition (an MPIJob run by the local runner as mpirun -np 3: a master and %d worker pod x %d slots), "+
		"the default chunking (1,000,000 letters; chunks: %s), a cold shard cache (each partition fetches its shards from MinIO); the database is a "+
		"BlastDatabase of %d shards built by the stack beforehand (not timed); %s.", campaignWorkers, campaignSlots, chunks, shards, cpu)
}

// campaignWay is way 6 for a workload: its database as a BlastDatabase
// (Ready before the rounds) and its queries in MinIO, removed after the
// workload's rounds by the stack's cleanup.
func (b *bench) campaignWay(ctx context.Context, w workload) (way, error) {
	db, err := b.stack.database(ctx, b, w)
	if err != nil {
		return way{}, err
	}
	key := fmt.Sprintf("%s/%s-%d/queries.fa", benchInputs, w.name, time.Now().Unix())
	if err := b.stack.put(ctx, b.qFA, key); err != nil {
		return way{}, fmt.Errorf("uploading %s: %w", b.qFA, err)
	}
	return way{wCampaign, b.stack.campaign(b, w, db, key)}, nil
}
