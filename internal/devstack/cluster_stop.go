package devstack

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// podGrace is how long pods get to stop at dev down (the engine's ranks
// record a stopped run and give their leases back in that time).
const podGrace = 15 * time.Second

// stopCluster takes the cluster down so that nothing is left: the
// controllers first (nothing recreates pods), then every pod through the
// API (the kubelet stops its containers, tears its network down and
// unmounts its volumes), the kubelet, any container still in containerd,
// the other components, and last what the stack changed on the machine:
// mounts, cgroups, iptables chains, the bridge and the sysctls.
func (s *supervisor) stopCluster() {
	s.stopNamed("kube-controller-manager", "kube-scheduler")
	if err := s.deletePods(); err != nil {
		s.step("deleting pods: %v", err)
	}
	s.stopNamed("kubelet")
	if err := removeContainers(s.p); err != nil {
		s.step("removing containers: %v", err)
	}
	s.stopRest()
	if err := machineCleanup(s.p, s.cfg.Cluster.Bin); err != nil {
		s.step("cleanup: %v", err)
	} else {
		s.step("mounts, cgroups, iptables chains, bridge %s and sysctls restored", bridgeName)
	}
}

// machineCleanup undoes what the cluster changed outside its processes.
func machineCleanup(p paths, bin string) error {
	return errors.Join(unmountUnder(p.dir), cgroupsDown(), networkDown(p, filepath.Join(bin, "kube-proxy")))
}

// deletePods deletes every pod, and any created meanwhile, and waits
// until the kubelet has stopped them all.
func (s *supervisor) deletePods() error {
	rc, err := RESTConfig(s.p.kubeconfig())
	if err != nil {
		return err
	}
	rc.Timeout = 10 * time.Second
	c, err := client.New(rc, client.Options{Scheme: kubescheme.New()})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), podGrace+30*time.Second)
	defer cancel()
	var pods corev1.PodList
	if err := c.List(ctx, &pods); err != nil {
		return err
	}
	if len(pods.Items) == 0 {
		return nil
	}
	s.step("deleting %d pods (grace %s)", len(pods.Items), podGrace)
	grace := int64(podGrace.Seconds())
	var left []string
	for {
		// Every pass, not once: operators that run as pods (the MPI
		// operator, Kueue) keep reconciling through their grace period and
		// may create pods after the first pass (a Kueue-admitted
		// partition's workers), which no scheduler binds and nothing else
		// deletes.
		for i := range pods.Items {
			if pods.Items[i].DeletionTimestamp == nil {
				_ = c.Delete(ctx, &pods.Items[i], client.GracePeriodSeconds(grace))
			}
		}
		if err := c.List(ctx, &pods); err != nil {
			left = []string{"(listing them: " + err.Error() + ")"}
		} else if left = podsRunning(pods.Items); len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pods still there: %s", strings.Join(left, ", "))
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// podsRunning names the pods the kubelet has yet to stop. A deleted pod
// it has stopped (its phase terminal) counts as gone even while a
// finalizer keeps its object: the controllers that remove those (the
// Job controller's job-tracking finalizer on MPIJob launchers and
// database Jobs, Argo's on its step pods) are stopped or are pods being
// deleted themselves, so waiting for them only runs out the timeout.
func podsRunning(pods []corev1.Pod) []string {
	var names []string
	for _, p := range pods {
		done := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		if p.DeletionTimestamp == nil || !done {
			names = append(names, fmt.Sprintf("%s/%s (%s on %q, finalizers %v)", p.Namespace, p.Name, p.Status.Phase, p.Spec.NodeName, p.Finalizers))
		}
	}
	return names
}

// removeContainers kills and removes whatever containerd still runs
// after the kubelet stopped (a pod it did not get to).
func removeContainers(p paths) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctr := func(args ...string) (string, error) {
		out, err := execOutput(ctx, "ctr", append([]string{"--address", p.containerdSocket(), "-n", "k8s.io"}, args...)...)
		return out, err
	}
	tasks, err := ctr("tasks", "ls", "-q")
	if err != nil {
		return nil // containerd is not running: nothing to remove
	}
	var errs []error
	for _, t := range strings.Fields(tasks) {
		_, _ = ctr("tasks", "kill", "-s", "SIGKILL", t)
	}
	for _, t := range strings.Fields(tasks) {
		for range 50 {
			if _, err := ctr("tasks", "rm", "-f", t); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	containers, _ := ctr("containers", "ls", "-q")
	for _, c := range strings.Fields(containers) {
		if _, err := ctr("containers", "rm", c); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// stopNamed stops the named components (in the order given).
func (s *supervisor) stopNamed(names ...string) {
	for _, n := range names {
		for _, c := range s.components() {
			if c.name == n {
				s.step("stopping %s", c.name)
				c.stop(10 * time.Second)
			}
		}
	}
}

// stopRest stops every component, last started first: each one's
// supervision ends (an exited one is not restarted), and the live ones
// are stopped and said so.
func (s *supervisor) stopRest() {
	comps := s.components()
	for i := len(comps) - 1; i >= 0; i-- {
		if p, _, _ := comps[i].snapshot(); p.PID != 0 {
			s.step("stopping %s", comps[i].name)
		}
		comps[i].stop(10 * time.Second)
	}
	s.syncComponents()
}

func (s *supervisor) components() []*component {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*component(nil), s.comps...)
}
