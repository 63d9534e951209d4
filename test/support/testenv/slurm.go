package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Slurm is a one-node Slurm cluster of the test's own: munged, slurmctld
// and slurmd on loopback ports with state, spool, logs and socket under
// Dir, never the system's services. Client commands need Env (SLURM_CONF).
type Slurm struct {
	Dir  string
	Conf string
	// Env is what sbatch, squeue and scancel need to reach this cluster.
	Env     []string
	Node    string
	daemons []*exec.Cmd
}

// slurmTools are what StartSlurm runs (Debian's slurm-wlm and munge).
var slurmTools = []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"}

// SlurmTools reports the first Slurm program missing from PATH, or "".
func SlurmTools() string {
	for _, tool := range slurmTools {
		if _, err := exec.LookPath(tool); err != nil {
			return tool
		}
	}
	return ""
}

// StartSlurm starts a cluster under dir with a node of cpus CPUs (more
// than the machine has is fine: the config overrides the count, so small
// jobs can share two cores) and waits until the node is idle.
func StartSlurm(dir string, cpus int) (*Slurm, error) {
	if missing := SlurmTools(); missing != "" {
		return nil, fmt.Errorf("%s not found: hack/install-deps.sh installs slurm-wlm and munge", missing)
	}
	host, err := os.Hostname()
	if err != nil {
		return nil, err
	}
	node, _, _ := strings.Cut(host, ".")
	s := &Slurm{Dir: dir, Conf: filepath.Join(dir, "slurm.conf"), Node: node}
	for _, d := range []string{"state", "spool", "jobs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	key := filepath.Join(dir, "munge.key")
	if out, err := exec.Command("mungekey", "--create", "--keyfile", key).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mungekey: %w: %s", err, out)
	}
	sock := filepath.Join(dir, "munge.socket")
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	conf := fmt.Sprintf(slurmConf, dir, ports[0], ports[1], sock, node, max(cpus, runtime.NumCPU()))
	if err := os.WriteFile(s.Conf, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	s.Env = []string{"SLURM_CONF=" + s.Conf}
	for _, argv := range [][]string{
		{"munged", "--foreground", "--force", "--socket", sock, "--key-file", key, "--log-file", filepath.Join(dir, "munged.log"),
			"--pid-file", filepath.Join(dir, "munged.pid"), "--seed-file", filepath.Join(dir, "munged.seed")},
		{"slurmctld", "-D", "-i", "-f", s.Conf},
		{"slurmd", "-D", "-f", s.Conf, "-N", node},
	} {
		if err := s.start(argv); err != nil {
			s.Stop()
			return nil, err
		}
		if argv[0] == "munged" {
			if err := waitFor(10*time.Second, func() bool { _, err := os.Stat(sock); return err == nil }); err != nil {
				s.Stop()
				return nil, fmt.Errorf("munged: no socket: %s", tail(filepath.Join(dir, "munged.log")))
			}
		}
	}
	idle := func() bool {
		out, err := s.Command(context.Background(), "sinfo", "--noheader", "--format", "%t").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	}
	if err := waitFor(60*time.Second, idle); err != nil {
		s.Stop()
		return nil, fmt.Errorf("the Slurm node did not become idle: slurmctld: %s; slurmd: %s",
			tail(filepath.Join(dir, "slurmctld.log")), tail(filepath.Join(dir, "slurmd.log")))
	}
	return s, nil
}

// slurmConf: linuxproc and no task plugin need no cgroups; no accounting
// database; KillWait short, so a cancelled job's SIGKILL comes soon after
// its SIGTERM, as tests want.
const slurmConf = `ClusterName=blastfleet-test
SlurmctldHost=%[5]s(127.0.0.1)
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd.pid
SlurmctldLogFile=%[1]s/slurmctld.log
SlurmdLogFile=%[1]s/slurmd.log
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
KillWait=10
InactiveLimit=0
MinJobAge=600
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=%[5]s NodeAddr=127.0.0.1 CPUs=%[6]d State=UNKNOWN
PartitionName=debug Nodes=%[5]s Default=YES MaxTime=INFINITE State=UP
`

func (s *Slurm) start(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), s.Env...)
	log, err := os.Create(filepath.Join(s.Dir, argv[0]+".out"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", argv[0], err)
	}
	s.daemons = append(s.daemons, cmd)
	return nil
}

// Command is a Slurm client command against this cluster.
func (s *Slurm) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), s.Env...)
	return cmd
}

// Stop cancels every job, waits (bounded) for them to leave the node, and
// stops the daemons, newest first.
func (s *Slurm) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	if len(s.daemons) == 3 {
		_ = s.Command(ctx, "scancel", "--full", "--user", currentUser()).Run()
		_ = waitFor(40*time.Second, func() bool {
			out, err := s.Command(ctx, "squeue", "--noheader").Output()
			return err != nil || strings.TrimSpace(string(out)) == ""
		})
	}
	for i := len(s.daemons) - 1; i >= 0; i-- {
		d := s.daemons[i]
		_ = syscall.Kill(-d.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = d.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-d.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	s.daemons = nil
}

func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "root"
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func waitFor(d time.Duration, cond func() bool) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], " | ")
}
