package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Proc is a process seen in /proc; Start (clock ticks since boot) tells a
// reused pid apart.
type Proc struct {
	PID   int
	Start string
}

// ProcStat returns a process's parent pid, state and start time from
// /proc/PID/stat.
func ProcStat(pid int) (ppid int, state, start string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", "", false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return 0, "", "", false
	}
	if ppid, err = strconv.Atoi(f[1]); err != nil {
		return 0, "", "", false
	}
	return ppid, f[0], f[19], true // field 22: starttime
}

// ProcStart returns a process's start time.
func ProcStart(pid int) (string, bool) {
	_, _, start, ok := ProcStat(pid)
	return start, ok
}

// Descendants lists every process below pid (Linux /proc; elsewhere none).
func Descendants(pid int) []Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]Proc{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, start, ok := ProcStat(p); ok {
			children[ppid] = append(children[ppid], Proc{PID: p, Start: start})
		}
	}
	var out []Proc
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.PID)
		}
		queue = queue[1:]
	}
	return out
}

// SignalTree sends sig to pid's process group and to every descendant of
// pid: mpirun starts each rank in a process group of its own, so killing
// the group alone leaves ranks running.
func SignalTree(pid int, sig syscall.Signal) {
	for pass := 0; pass < 2; pass++ { // again for children forked meanwhile
		procs := Descendants(pid)
		_ = syscall.Kill(-pid, sig)
		for _, p := range procs {
			if start, ok := ProcStart(p.PID); ok && start == p.Start {
				_ = syscall.Kill(p.PID, sig)
			}
		}
	}
}

// EngineRanks returns the blastfleet-engine processes under root by MPI
// rank, read from OMPI_COMM_WORLD_RANK in their environment.
func EngineRanks(root int) map[int]Proc {
	out := map[int]Proc{}
	for _, c := range Descendants(root) {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", c.PID))
		if err != nil || filepath.Base(exe) != "blastfleet-engine" {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", c.PID))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, "OMPI_COMM_WORLD_RANK="); ok {
				// Descendants lists parents first. A rank's child caught
				// between fork and exec still looks like the rank (same
				// executable, same environment): keep the first one.
				if r, err := strconv.Atoi(v); err == nil {
					if _, seen := out[r]; !seen {
						out[r] = c
					}
				}
			}
		}
	}
	return out
}

// Marked lists the live processes (zombies aside) whose environment holds
// the entry kv ("NAME=value"): give a launch a unique marker, and this
// finds whatever it left, however it was re-parented (Hydra's proxies,
// a daemonized helper) where Descendants no longer can.
func Marked(kv string) []Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), kv) {
			continue
		}
		if _, state, start, ok := ProcStat(pid); ok && state != "Z" && state != "X" {
			out = append(out, Proc{PID: pid, Start: start})
		}
	}
	return out
}
