// Package benchrun runs blastfleet-engine for the benchmarks (under
// mpirun, oversubscribed, with the OpenMPI settings of docs/engine.md) and
// reads back its run summary; it also describes the machine, since every
// figure states where it was measured.
package benchrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// MPIEnv is what OpenMPI needs here: ranks that wait yield their core
// (more ranks than cores), root allowed, no ptrace-based copy.
var MPIEnv = []string{"OMPI_MCA_mpi_yield_when_idle=1", "OMPI_ALLOW_RUN_AS_ROOT=1",
	"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_btl_vader_single_copy_mechanism=none", "OMPI_MCA_pml=ob1"}

// Run is one engine run.
type Run struct {
	NP      int                `json:"np"`
	Args    []string           `json:"args"`
	Wall    float64            `json:"wallSeconds"` // mpirun, start to exit
	CPU     float64            `json:"cpuSeconds"`  // user+sys of mpirun and every rank
	Load    string             `json:"loadAverage"` // /proc/loadavg when the run started
	SHA256  string             `json:"outputSHA256"`
	Bytes   int64              `json:"outputBytes"`
	Summary *runrecord.Summary `json:"summary"`
}

// Command is the run's command line, as a person would type it.
func (r *Run) Command() string {
	return Command(r.NP, r.Args)
}

// Command renders mpirun -np np ... blastfleet-engine args with quoting;
// np 0 stands for a rank count the text gives (RANKS).
func Command(np int, args []string) string {
	n := "RANKS"
	if np > 0 {
		n = fmt.Sprint(np)
	}
	parts := []string{"mpirun", "-np", n, "--oversubscribe", "blastfleet-engine"}
	for _, a := range args {
		if strings.ContainsAny(a, " \t\"'") {
			a = fmt.Sprintf("%q", a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// Engine runs bin under mpirun with np ranks; args are the engine's flags
// but --output and --summary-json, which it adds under work (the output is
// hashed and removed: the benchmarks compare outputs by hash).
func Engine(ctx context.Context, bin, work string, np int, args []string) (*Run, error) {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	out := filepath.Join(work, "out.tsv")
	sj := filepath.Join(work, "summary.json")
	os.Remove(out)
	os.Remove(sj)
	argv := append([]string{"-np", fmt.Sprint(np), "--oversubscribe", bin, "--output", out, "--summary-json", sj}, args...)
	cmd := exec.CommandContext(ctx, "mpirun", argv...)
	cmd.Env = append(os.Environ(), MPIEnv...)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, io.Discard
	r := &Run{NP: np, Args: args, Load: LoadAverage()}
	start := time.Now()
	err := cmd.Run()
	r.Wall = time.Since(start).Seconds()
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", r.Command(), err, tail(stderr.String(), 3000))
	}
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	data, err := os.ReadFile(sj)
	if err != nil {
		return nil, fmt.Errorf("%s: reading its summary: %w", r.Command(), err)
	}
	r.Summary = &runrecord.Summary{}
	if err := json.Unmarshal(data, r.Summary); err != nil {
		return nil, fmt.Errorf("%s: %w", sj, err)
	}
	if r.SHA256, r.Bytes, err = hashFile(out); err != nil {
		return nil, err
	}
	os.Remove(out)
	return r, nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("reading the output: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// LoadAverage is /proc/loadavg's first three fields.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return strings.TrimSpace(string(b))
	}
	return strings.Join(f[:3], " ")
}

// Machine describes where the benchmark runs, one fact per line.
func Machine(ctx context.Context) []string {
	out := func(name string, args ...string) string {
		b, _ := exec.CommandContext(ctx, name, args...).CombinedOutput()
		return strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	}
	cpu := "?"
	if b, err := exec.CommandContext(ctx, "lscpu").Output(); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
			}
		}
	}
	return []string{
		fmt.Sprintf("nproc %s, CPU %s", out("nproc"), cpu),
		fmt.Sprintf("OpenMPI: %s", out("mpirun", "--version")),
		fmt.Sprintf("BLAST+: %s", out("blastn", "-version")),
		fmt.Sprintf("Go: %s, GOMAXPROCS %d", runtime.Version(), runtime.GOMAXPROCS(0)),
		fmt.Sprintf("load average at start: %s", LoadAverage()),
	}
}
