package localrunner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// podRequest is a pod to stand in for: the first container of spec runs.
type podRequest struct {
	meta podMeta
	spec *corev1.PodSpec
	// mountsFrom are more pod specs whose first container's emptyDir
	// mounts are mapped too: an MPIJob's ranks run in worker pods, so
	// the launcher's args name the workers' mounts.
	mountsFrom []*corev1.PodSpec
	// extraEnv is appended to the container's env, as the Job controller
	// appends JOB_COMPLETION_INDEX.
	extraEnv []corev1.EnvVar
	// injected is set after the container's env, as the MPI operator
	// appends its variables (so they win).
	injected *envList
	scratch  string // where the emptyDir stand-ins go
	dir      string // working directory when the container names none
}

// errPending marks what keeps a pod from starting without failing it: the
// kubelet leaves such a pod Pending (CreateContainerConfigError) and
// retries, e.g. until a missing Secret appears.
var errPending = errors.New("cannot start yet")

// prepare turns a pod into a local command: env resolved, $(VAR) expanded,
// emptyDir and ConfigMap mount paths rewritten (ConfigMaps' files
// written), the command found on this machine.
func (r *Runner) prepare(ctx context.Context, req podRequest) (*launch, error) {
	if len(req.spec.Containers) == 0 {
		return nil, errors.New("the pod template has no container")
	}
	c := req.spec.Containers[0].DeepCopy()
	if len(req.spec.Containers) > 1 || len(req.spec.InitContainers) > 0 {
		r.log.Info("only the first container runs locally", "namespace", req.meta.Namespace, "pod", req.meta.Name, "container", c.Name)
	}
	c.Env = append(c.Env, req.extraEnv...)
	res := &envResolver{reader: r.reader, pod: req.meta, secrets: map[string]*corev1.Secret{}, configMaps: map[string]*corev1.ConfigMap{}}
	cenv, err := res.containerEnv(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errPending, err)
	}
	if req.injected != nil {
		cenv.merge(req.injected)
	}

	mounts, skipped := emptyDirMounts(req.scratch, req.spec, c)
	if err := writeConfigMaps(ctx, res, req.scratch, req.spec, c); err != nil {
		return nil, fmt.Errorf("%w: %w", errPending, err)
	}
	for _, s := range req.mountsFrom {
		if len(s.Containers) > 0 {
			more, sk := emptyDirMounts(req.scratch, s, &s.Containers[0])
			mounts, skipped = addMounts(mounts, more), append(skipped, sk...)
			if err := writeConfigMaps(ctx, res, req.scratch, s, &s.Containers[0]); err != nil {
				return nil, fmt.Errorf("%w: %w", errPending, err)
			}
		}
	}
	if len(skipped) > 0 {
		r.log.Info("volumes other than emptyDir are not mounted locally", "namespace", req.meta.Namespace, "pod", req.meta.Name, "volumes", skipped)
	}
	l := &launch{Dir: req.dir}
	for _, m := range mounts {
		if !slices.Contains(l.Scratch, m.Local) {
			l.Scratch = append(l.Scratch, m.Local)
		}
	}
	for _, n := range cenv.names {
		cenv.vals[n] = rewritePaths(cenv.vals[n], mounts)
	}
	if c.WorkingDir != "" {
		// An image directory that does not exist here falls back to the
		// run's directory; one inside an emptyDir is created with it.
		if wd := rewritePaths(c.WorkingDir, mounts); wd != c.WorkingDir || isDir(wd) {
			l.Dir = wd
		}
	}

	argv := make([]string, 0, len(c.Command)+len(c.Args))
	for _, a := range append(slices.Clone(c.Command), c.Args...) {
		argv = append(argv, rewritePaths(expand(a, cenv.vals), mounts))
	}
	if len(c.Command) == 0 {
		return nil, fmt.Errorf("container %s has no command: the image's entrypoint is unknown here", c.Name)
	}

	env := r.hostEnv()
	env.merge(cenv)
	isMPI := filepath.Base(argv[0]) == mpirunName
	if isMPI {
		env.merge(localMPIEnv())
	}
	pathList, _ := env.get("PATH")
	if r.opts.BinDir != "" {
		pathList = r.opts.BinDir + string(filepath.ListSeparator) + pathList
	}
	pathList = r.bin + string(filepath.ListSeparator) + pathList
	env.set("PATH", pathList)

	if l.Path, err = resolveCommand(argv[0], pathList); err != nil {
		return nil, err
	}
	l.Argv0, l.Args = argv[0], argv[1:]
	if isMPI {
		l.Args = withOversubscribe(l.Args)
	}
	l.Env = env.environ()
	return l, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
