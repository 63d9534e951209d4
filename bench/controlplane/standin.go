package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/controllers"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// standIn plays the engine inside the pods kwok "runs": when a campaign's
// planning pod runs it writes the plan, when a partition's launcher runs
// it does to the ledger and the store what the partition's ranks would
// (lease chunks, commit a small result for each, assemble once none is
// left), through the repo's own ledger and object store code. Then it
// finishes the pod through its status, as the kubelet would on the
// container's exit 0; the Job controller and the MPI operator take it from
// there.
type standIn struct {
	c     client.Client
	w     *workload
	hold  time.Duration // how long a launcher "runs" before it does its work
	queue workqueue.TypedRateLimitingInterface[string]

	mu      sync.Mutex
	done    map[string]bool      // pods finished (by name and UID)
	worked  map[string]time.Time // launchers that did their share, and when
	ledgers map[string]*ledger.Ledger
	running map[string]time.Time // launchers first seen Running, by MPIJob
	errs    []string
}

func newStandIn(c client.Client, w *workload, hold time.Duration) *standIn {
	return &standIn{c: c, w: w, hold: hold, done: map[string]bool{}, worked: map[string]time.Time{}, ledgers: map[string]*ledger.Ledger{}, running: map[string]time.Time{},
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
}

// kind of pod the stand-in acts on.
func podRole(p *corev1.Pod) string {
	switch {
	case p.Labels[controllers.LabelComponent] == "plan":
		return "plan"
	case p.Labels[kubeflow.JobRoleLabel] == "launcher":
		return "launcher"
	}
	return ""
}

// observe is the pod informer's handler: Running pods of interest are
// queued (by name and UID, so a replaced pod is worked on afresh).
func (s *standIn) observe(p *corev1.Pod) {
	role := podRole(p)
	if role == "" || p.Status.Phase != corev1.PodRunning || !p.DeletionTimestamp.IsZero() {
		return
	}
	key := p.Name + "/" + string(p.UID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done[key] {
		return
	}
	if role == "launcher" {
		job := p.Labels[kubeflow.JobNameLabel]
		if _, ok := s.running[job]; !ok {
			s.running[job] = time.Now()
		}
	}
	s.queue.Add(key)
}

// run works the queue on k goroutines until ctx ends.
func (s *standIn) run(ctx context.Context, k int) {
	go func() { <-ctx.Done(); s.queue.ShutDown() }()
	for range k {
		go func() {
			for {
				key, quit := s.queue.Get()
				if quit {
					return
				}
				after, err := s.work(ctx, key)
				switch {
				case err != nil && ctx.Err() == nil:
					s.note(fmt.Sprintf("%s: %v", key, err))
					s.queue.AddRateLimited(key)
				case after > 0:
					s.queue.AddAfter(key, after)
				default:
					s.queue.Forget(key)
				}
				s.queue.Done(key)
			}
		}()
	}
}

func (s *standIn) note(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) < 20 {
		s.errs = append(s.errs, msg)
	}
}

// work does a pod's part; after > 0 asks to be called again then (a
// launcher that has not run for hold yet).
func (s *standIn) work(ctx context.Context, key string) (after time.Duration, err error) {
	name, uid, _ := strings.Cut(key, "/")
	var p corev1.Pod
	if err := s.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &p); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	if string(p.UID) != uid || p.Status.Phase != corev1.PodRunning {
		return 0, nil // replaced or already finished
	}
	campaign := p.Labels[controllers.LabelCampaign]
	if campaign == "" {
		return 0, fmt.Errorf("pod %s has no %s label", p.Name, controllers.LabelCampaign)
	}
	switch podRole(&p) {
	case "plan":
		err = s.planCampaign(ctx, campaign)
	case "launcher":
		s.mu.Lock()
		since := s.running[p.Labels[kubeflow.JobNameLabel]]
		s.mu.Unlock()
		if wait := s.hold - time.Since(since); wait > 0 {
			return wait, nil
		}
		done, err := s.runPartition(ctx, campaign, p.Name)
		if err != nil || !done {
			return 2 * time.Second, err
		}
	}
	if err != nil {
		return 0, err
	}
	if err := s.succeed(ctx, &p); err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.done[key] = true
	s.mu.Unlock()
	return 0, nil
}

// planCampaign writes the campaign's plan as its planning Job would.
func (s *standIn) planCampaign(ctx context.Context, campaign string) error {
	st, err := s.w.campaignStore(campaign)
	if err != nil {
		return err
	}
	return ledger.WritePlan(ctx, st, plan(campaign))
}

// runPartition is one partition's work, in steps that never block a
// worker on another partition: first its share of the chunks leased and
// committed, then, on later calls, once every chunk is decided, the
// result assembled (the ledger lets one partition do it; the others wait
// for its marker). The share makes every partition of a campaign run
// before it completes, as partitions of equal speed would; a partition
// that has waited two lease periods takes what is left (a chunk whose
// lease expired). done: the pod may finish.
func (s *standIn) runPartition(ctx context.Context, campaign, holder string) (done bool, err error) {
	l, err := s.ledger(ctx, campaign)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	worked, ok := s.worked[holder]
	s.mu.Unlock()
	limit := -1 // no limit
	switch {
	case !ok:
		limit = (len(l.Plan().Chunks) + int(s.w.partitions) - 1) / int(s.w.partitions)
	case time.Since(worked) < 2*time.Duration(l.Plan().Policy.LeaseSeconds)*time.Second:
		limit = 0
	}
	for n := 0; limit < 0 || n < limit; n++ {
		lease, err := l.Acquire(ctx, holder)
		if errors.Is(err, ledger.ErrNoChunk) {
			break
		}
		if err != nil {
			return false, fmt.Errorf("leasing a chunk of %s: %w", campaign, err)
		}
		var b strings.Builder
		for q := lease.Range.First; q < lease.Range.End; q++ {
			fmt.Fprintf(&b, "q%d\ts%d\t1e-10\t50\n", q, q%7)
		}
		if err := lease.Commit(ctx, strings.NewReader(b.String()), int64(b.Len())); err != nil {
			return false, fmt.Errorf("committing %s of %s: %w", lease.Range, campaign, err)
		}
	}
	if !ok {
		s.mu.Lock()
		s.worked[holder] = time.Now()
		s.mu.Unlock()
	}
	status, err := l.Status(ctx)
	if err != nil {
		return false, fmt.Errorf("reading the ledger of %s: %w", campaign, err)
	}
	if !status.Complete {
		return false, nil // other partitions hold chunks: look again later
	}
	if _, err := l.Assemble(ctx); err != nil {
		return false, fmt.Errorf("assembling %s: %w", campaign, err)
	}
	return true, nil
}

// ledger is the campaign's ledger, opened once (it reads the plan).
func (s *standIn) ledger(ctx context.Context, campaign string) (*ledger.Ledger, error) {
	s.mu.Lock()
	l := s.ledgers[campaign]
	s.mu.Unlock()
	if l != nil {
		return l, nil
	}
	st, err := s.w.campaignStore(campaign)
	if err != nil {
		return nil, err
	}
	if l, err = ledger.Open(ctx, st, ledger.Options{}); err != nil {
		return nil, fmt.Errorf("opening the ledger of %s: %w", campaign, err)
	}
	s.mu.Lock()
	s.ledgers[campaign] = l
	s.mu.Unlock()
	return l, nil
}

// succeed ends the pod as the kubelet would after its containers exit 0.
func (s *standIn) succeed(ctx context.Context, p *corev1.Pod) error {
	return retry(ctx, "finishing pod "+p.Name, func() error {
		var cur corev1.Pod
		if err := s.c.Get(ctx, client.ObjectKeyFromObject(p), &cur); err != nil {
			return client.IgnoreNotFound(err)
		}
		if cur.UID != p.UID || cur.Status.Phase == corev1.PodSucceeded {
			return nil
		}
		now := metav1.Now()
		cur.Status.Phase = corev1.PodSucceeded
		var statuses []corev1.ContainerStatus
		for _, c := range cur.Spec.Containers {
			statuses = append(statuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image,
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}}})
		}
		cur.Status.ContainerStatuses = statuses
		for i := range cur.Status.Conditions {
			if t := cur.Status.Conditions[i].Type; t == corev1.PodReady || t == corev1.ContainersReady {
				cur.Status.Conditions[i].Status, cur.Status.Conditions[i].LastTransitionTime = corev1.ConditionFalse, now
			}
		}
		return s.c.Status().Update(ctx, &cur)
	})
}

// lastRunning is when the last partition was first seen running, and how
// many were.
func (s *standIn) lastRunning() (time.Time, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var last time.Time
	for _, t := range s.running {
		if t.After(last) {
			last = t
		}
	}
	return last, len(s.running)
}

func (s *standIn) errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}
