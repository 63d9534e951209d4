package devstack

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stat is what /proc/PID/stat says of a process.
type stat struct {
	ppid, sid int
	state     string
	start     string // clock ticks since boot: tells a reused pid apart
}

func procStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3
	if len(f) < 20 {
		return stat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	sid, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil {
		return stat{}, false
	}
	return stat{ppid: ppid, sid: sid, state: f[0], start: f[19]}, true
}

// procOf is the Proc of a running pid, for the state file.
func procOf(pid int) Proc {
	st, _ := procStat(pid)
	return Proc{PID: pid, Start: st.start}
}

// Straggler is a live process that belongs to a stack.
type Straggler struct {
	PID     int
	Start   string
	Cmdline string
}

func (s Straggler) String() string { return fmt.Sprintf("pid %d: %s", s.PID, s.Cmdline) }

// Stragglers lists the live processes (zombies aside) carrying the
// stack's marker in their environment, except the caller: every process
// the supervisor started, down to mpirun's ranks.
func Stragglers(dir string) []Straggler {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(MarkerEnv + "=" + dir + "\x00")
	self := os.Getpid()
	var out []Straggler
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append(env, 0), want) {
			continue
		}
		st, ok := procStat(pid)
		if !ok || st.state == "Z" || st.state == "X" {
			continue
		}
		out = append(out, Straggler{PID: pid, Start: st.start, Cmdline: cmdline(pid)})
	}
	return out
}

func cmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return "?"
	}
	s := strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// killAll sends SIGTERM to procs (those still the same process), waits up
// to grace for them to go, then SIGKILLs what is left and waits a little
// more. It returns what survived.
func killAll(procs []Straggler, grace time.Duration) []Straggler {
	signal := func(sig syscall.Signal) []Straggler {
		var live []Straggler
		for _, p := range procs {
			if (Proc{PID: p.PID, Start: p.Start}).alive() {
				_ = syscall.Kill(p.PID, sig)
				live = append(live, p)
			}
		}
		return live
	}
	waitGone := func(d time.Duration) []Straggler {
		deadline := time.Now().Add(d)
		for {
			var live []Straggler
			for _, p := range procs {
				if (Proc{PID: p.PID, Start: p.Start}).alive() {
					live = append(live, p)
				}
			}
			if len(live) == 0 || time.Now().After(deadline) {
				return live
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if len(signal(syscall.SIGTERM)) == 0 {
		return nil
	}
	if procs = waitGone(grace); len(procs) == 0 {
		return nil
	}
	signal(syscall.SIGKILL)
	return waitGone(5 * time.Second)
}
