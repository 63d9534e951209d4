package devstack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// child is one supervised process: started, checked ready, restarted
// when it exits (as a Deployment restarts its pod), stopped on request.
type child struct {
	name    string
	path    string
	args    []string
	env     []string // added to the supervisor's environment
	logPath string
	// ready returns nil once the process serves; polled after a start.
	ready func(ctx context.Context) error
	// changed is told about every start and exit (the state file).
	changed func(*child)

	mu       sync.Mutex
	pid      int
	start    string
	restarts int
	lastExit string
	exited   chan struct{} // closed when the current process ends
	stopping bool
}

// restartBackoff is the wait before restart n (1s doubling to 10s); a
// process that ran for resetAfter starts the count again.
func restartBackoff(n int) time.Duration {
	d := time.Second << min(n, 4)
	return min(d, 10*time.Second)
}

const resetAfter = 30 * time.Second

// launch starts the process once, with its output appended to its log.
func (c *child) launch() error {
	f, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s log: %w", c.name, err)
	}
	defer f.Close() // the child has its own copy
	fmt.Fprintf(f, "--- devstack: starting %s at %s ---\n", c.name, time.Now().Format(time.RFC3339))
	cmd := exec.Command(c.path, c.args...)
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = f, f
	// A session of its own (signals to the stack's terminal do not reach
	// it), and death with the supervisor if that is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", c.name, err)
	}
	exited := make(chan struct{})
	c.mu.Lock()
	c.pid, c.start, c.exited = cmd.Process.Pid, procOf(cmd.Process.Pid).Start, exited
	c.mu.Unlock()
	go func() {
		err := cmd.Wait()
		c.mu.Lock()
		c.lastExit = fmt.Sprintf("%s at %s", exitText(err), time.Now().Format(time.RFC3339))
		c.mu.Unlock()
		close(exited)
	}()
	c.notify()
	return nil
}

func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by " + ws.Signal().String()
		}
		return fmt.Sprintf("exited with code %d", ee.ExitCode())
	}
	if err != nil {
		return err.Error()
	}
	return "exited with code 0"
}

func (c *child) notify() {
	if c.changed != nil {
		c.changed(c)
	}
}

// startReady starts the process and waits until it is ready, it exits,
// or timeout passes; the error then carries the end of its log.
func (c *child) startReady(ctx context.Context, timeout time.Duration) error {
	if err := c.launch(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c.mu.Lock()
	exited := c.exited
	c.mu.Unlock()
	var last error
	for {
		if c.ready == nil {
			return nil
		}
		if last = c.ready(ctx); last == nil {
			return nil
		}
		select {
		case <-exited:
			c.mu.Lock()
			how := c.lastExit
			c.mu.Unlock()
			return fmt.Errorf("%s %s before it was ready; end of %s:\n%s", c.name, how, c.logPath, tail(c.logPath, 15))
		case <-ctx.Done():
			c.kill(5 * time.Second)
			return fmt.Errorf("%s not ready after %s (%v); end of %s:\n%s", c.name, timeout, last, c.logPath, tail(c.logPath, 15))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// supervise restarts the process whenever it exits, until stop.
func (c *child) supervise(ctx context.Context, timeout time.Duration, logf func(string, ...any)) {
	failures := 0
	for {
		c.mu.Lock()
		exited, started := c.exited, time.Now()
		c.mu.Unlock()
		select {
		case <-exited:
		case <-ctx.Done():
			return
		}
		c.mu.Lock()
		stopping, how := c.stopping, c.lastExit
		c.mu.Unlock()
		if stopping {
			return
		}
		c.notify()
		if time.Since(started) > resetAfter {
			failures = 0
		}
		wait := restartBackoff(failures)
		failures++
		logf("%s %s; restarting it in %s", c.name, how, wait)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return
		}
		c.mu.Lock()
		c.restarts++
		c.mu.Unlock()
		// A start that fails leaves the process exited (or killed), so
		// the next round backs off and tries again.
		if err := c.startReady(ctx, timeout); err != nil {
			logf("restarting %s: %v", c.name, err)
		} else {
			logf("%s restarted (pid %d)", c.name, c.PID())
		}
	}
}

// stop ends supervision and the process: SIGTERM, SIGKILL after grace.
func (c *child) stop(grace time.Duration) {
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	c.kill(grace)
}

func (c *child) kill(grace time.Duration) {
	c.mu.Lock()
	pid, exited := c.pid, c.exited
	c.mu.Unlock()
	if exited == nil {
		return
	}
	select {
	case <-exited:
		return
	default:
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM) // its session's group: itself and what it forked
	select {
	case <-exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-exited
	}
}

// PID is the current process's pid.
func (c *child) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pid
}

// snapshot is the child for the state file.
func (c *child) snapshot() (Proc, int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := Proc{PID: c.pid, Start: c.start, Log: c.logPath}
	if c.exited != nil {
		select {
		case <-c.exited:
			p.PID, p.Start = 0, "" // not running
		default:
		}
	}
	return p, c.restarts, c.lastExit
}
