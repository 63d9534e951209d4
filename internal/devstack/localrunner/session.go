package localrunner

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sessionMembers lists the live processes in session sid. A run's process
// leads a session of its own (Setsid), and mpirun puts each rank in a
// process group of its own but leaves it in the session; the session also
// survives re-parenting when mpirun dies first. Zombies are left out: they
// are already dead. Without /proc (not Linux) the list is empty and only
// the leader's process group is signalled.
func sessionMembers(sid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, state, ok := procSession(pid); ok && s == sid && state != "Z" && state != "X" {
			out = append(out, pid)
		}
	}
	return out
}

// procSession reads a process's session id and state from /proc/PID/stat.
func procSession(pid int) (sid int, state string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state), f[3] field 6 (session)
	if len(f) < 4 {
		return 0, "", false
	}
	sid, err = strconv.Atoi(f[3])
	return sid, f[0], err == nil
}

// signalSession sends sig to the leader's process group and to every
// process in its session.
func signalSession(sid int, sig syscall.Signal) {
	_ = syscall.Kill(-sid, sig)
	for _, pid := range sessionMembers(sid) {
		_ = syscall.Kill(pid, sig)
	}
}

// reapSession kills whatever is left of a session after its leader
// exited, as a container runtime kills a container's processes when its
// main process ends, and waits (bounded) until none is left.
func reapSession(sid int, wait time.Duration) {
	deadline := time.Now().Add(wait)
	for {
		left := sessionMembers(sid)
		if len(left) == 0 {
			return
		}
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
