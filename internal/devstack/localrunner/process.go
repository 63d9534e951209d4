package localrunner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// launch is a container made ready to run locally: what prepare makes of
// a pod template.
type launch struct {
	Path    string   // resolved executable
	Argv0   string   // argv[0] as the pod spec gives it (a pod's process sees that)
	Args    []string // argv[1:]
	Env     []string
	Dir     string
	Scratch []string // emptyDir stand-ins: created before, removed after
	Ports   int      // metrics port block size, 0 when none was reserved
}

// proc is one running container: a process leading its own session.
type proc struct {
	pid     int
	log     string
	logFrom int64 // where this process's output starts in log
	started time.Time
	done    chan struct{}
	// Set before done is closed.
	exitCode int // -1: killed by a signal
	exitErr  error
	ended    time.Time
}

// startProc starts l with stdout and stderr appended to logPath. The log
// file itself is the child's stdout, so no copying goroutine waits for
// grandchildren that keep the descriptor open.
func startProc(l *launch, logPath string, truncate bool, keepScratch bool) (*proc, error) {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, fmt.Errorf("log directory: %w", err)
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if truncate {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(logPath, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log: %w", err)
	}
	defer f.Close() // the child holds its own copy
	from, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("log %s: %w", logPath, err)
	}
	for _, d := range append(l.Scratch, l.Dir) {
		if d == "" {
			continue
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("working or scratch directory: %w", err)
		}
	}
	cmd := exec.Command(l.Path, l.Args...)
	if l.Argv0 != "" {
		// As in a pod, where the runtime passes the command as written:
		// mpirun run by an absolute path acts as if given --prefix and
		// puts its own bin/ first on the ranks' PATH, which it does not
		// do in a launcher pod that runs plain "mpirun".
		cmd.Args[0] = l.Argv0
	}
	cmd.Env, cmd.Dir = l.Env, l.Dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		// What the kubelet reports as StartError; it goes to the log too.
		fmt.Fprintf(f, "localrunner: cannot start %s: %v\n", l.Path, err)
		removeScratch(l, keepScratch)
		return nil, fmt.Errorf("starting %s: %w", l.Path, err)
	}
	p := &proc{pid: cmd.Process.Pid, log: logPath, logFrom: from, started: time.Now(), done: make(chan struct{})}
	writePIDFile(logPath+pidSuffix, p.pid)
	go func() {
		err := cmd.Wait()
		p.exitCode, p.exitErr = exitCode(err), err
		p.ended = time.Now()
		reapSession(p.pid, 2*time.Second)
		removeScratch(l, keepScratch)
		_ = os.Remove(logPath + pidSuffix)
		close(p.done)
	}()
	return p, nil
}

func removeScratch(l *launch, keep bool) {
	if keep {
		return
	}
	for _, d := range l.Scratch {
		_ = os.RemoveAll(d)
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode() // -1 when signalled
	}
	return -1
}

// kill ends the process tree as the kubelet stops a container: SIGTERM
// to the leader alone (a container's first process), SIGKILL to the whole
// session after grace; once the leader exits, the rest of the session is
// killed (reapSession). It returns once the leader has exited and the
// rest is gone. The leader alone: mpirun forwards one SIGTERM to its
// ranks and waits for them, but a second (the group's, then its own)
// makes it abort at once, killing a master that is still releasing its
// chunks.
func (p *proc) kill(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(p.pid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		signalSession(p.pid, syscall.SIGKILL)
		<-p.done
	}
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// describe says how the process ended, with the end of its log: locally
// there is no pod termination message, so this is what the Failed
// conditions carry instead.
func (p *proc) describe(what string) string {
	how := fmt.Sprintf("%s exited with code %d", what, p.exitCode)
	if p.exitCode < 0 {
		how = fmt.Sprintf("%s was killed (%v)", what, p.exitErr)
	}
	tail := logTail(p.log, p.logFrom, tailLines, tailBytes)
	if tail == "" {
		return how
	}
	return how + "; last lines of its log:\n" + tail
}

const (
	tailLines = 20
	tailBytes = 4096
)

// logTail is the last lines of path from offset from on, at most maxBytes.
func logTail(path string, from int64, lines, maxBytes int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil || end <= from {
		return ""
	}
	start := max(from, end-int64(maxBytes))
	buf := make([]byte, end-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	s := strings.TrimRight(string(buf), "\n")
	if start > from { // cut a partial first line
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	all := strings.Split(s, "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
