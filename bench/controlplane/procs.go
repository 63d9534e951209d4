package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// proc is one component of the bench's cluster, run as its own process
// with its output in a log file, so it can be stopped and started again
// (the restarts the bench makes) with the same flags.
type proc struct {
	name  string
	path  string
	args  []string
	env   []string
	log   string
	ready func(ctx context.Context) error

	// mu guards what the supervisor shares with start and stop.
	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{}
	stopping bool
	// crashes counts exits the bench did not ask for; each is restarted,
	// as a kubelet restarts a pod's container.
	crashes int
}

// start starts the process and waits until ready says it serves.
func (p *proc) start(ctx context.Context) error {
	if err := p.launch(); err != nil {
		return err
	}
	p.mu.Lock()
	exited := p.exited
	p.mu.Unlock()
	if p.ready == nil {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		err := p.ready(rctx)
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited before it was ready (see %s): %v", p.name, p.log, err)
		case <-rctx.Done():
			return fmt.Errorf("%s not ready within 2m (see %s): %v", p.name, p.log, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// launch starts the process once and supervises it: an exit nobody asked
// for is restarted a second later.
func (p *proc) launch() error {
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s log: %w", p.name, err)
	}
	defer f.Close()
	fmt.Fprintf(f, "--- bench: starting %s at %s ---\n", p.name, time.Now().Format(time.RFC3339))
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = f, f
	// Killed with the bench, however the bench ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	exited := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.exited, p.stopping = cmd, exited, false
	p.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		close(exited)
		p.mu.Lock()
		again := !p.stopping && p.cmd == cmd
		if again {
			p.crashes++
		}
		p.mu.Unlock()
		if again {
			time.Sleep(time.Second)
			if err := p.launch(); err != nil {
				fmt.Fprintf(os.Stderr, "restarting %s: %v\n", p.name, err)
			}
		}
	}()
	return nil
}

// stop ends the process: SIGTERM, then SIGKILL after 20 s.
func (p *proc) stop() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.stopping = true
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
	p.mu.Lock()
	p.cmd = nil
	p.mu.Unlock()
}

// crashCount is how many times the process exited on its own.
func (p *proc) crashCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crashes
}

// restart stops the process and starts it again with the same flags.
func (p *proc) restart(ctx context.Context) error {
	p.stop()
	return p.start(ctx)
}

// httpReady is a ready check: url answers 200.
func httpReady(c *http.Client, url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		return nil
	}
}
