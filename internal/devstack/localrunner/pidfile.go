package localrunner

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pidSuffix names the file beside a log that records its running
// process, so a restarted runner can kill what a crashed one left behind
// (Pdeathsig kills only the leader; mpirun's ranks would linger).
const pidSuffix = ".pid"

func writePIDFile(path string, pid int) {
	start, _ := procStart(pid)
	_ = os.WriteFile(path, []byte(fmt.Sprintf("%d %s\n", pid, start)), 0o644)
}

// sweepStale kills the sessions recorded by the pid files of the logs
// matching logGlob and removes the files. A recorded leader that is alive
// must have the recorded start time, so a reused pid is left alone.
func sweepStale(logGlob string, grace time.Duration) (killed int) {
	files, _ := filepath.Glob(logGlob + pidSuffix)
	for _, f := range files {
		b, err := os.ReadFile(f)
		_ = os.Remove(f)
		if err != nil {
			continue
		}
		fields := strings.Fields(string(b))
		if len(fields) != 2 {
			continue
		}
		pid, err := strconv.Atoi(fields[0])
		if err != nil || pid <= 1 {
			continue
		}
		if start, alive := procStart(pid); alive && start != fields[1] {
			continue
		}
		if len(sessionMembers(pid)) == 0 {
			continue
		}
		killed++
		signalSession(pid, syscall.SIGTERM)
		deadline := time.Now().Add(grace)
		for len(sessionMembers(pid)) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		reapSession(pid, time.Second)
	}
	return killed
}

// procStart is a process's start time (clock ticks since boot, field 22
// of /proc/PID/stat), which tells a reused pid apart.
func procStart(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", false
	}
	return f[19], true
}
