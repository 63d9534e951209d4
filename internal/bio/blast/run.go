package blast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Invocation is one BLAST run: a query file against a database (an alias
// file path without extension works, as for -db).
type Invocation struct {
	Program       Program
	DB            string
	Query         string
	Format        *Format
	MaxTargetSeqs int     // 0: BLAST's default
	Evalue        float64 // 0: BLAST's default
	Threads       int     // -num_threads when > 1
	Options       []Option
	// BatchLetters is B, the letters BLAST+ reads into one batch of
	// queries, searched as one concatenated query (BatchLetters gives a
	// search's; Alone makes every query its own batch). 0: Alone.
	BatchLetters int
	// MaxOutput bounds the standard output kept in memory: past it BLAST
	// is killed and Run returns an *OutputLimitError. 0: unbounded.
	MaxOutput int64
	// Timeout bounds the run: past it BLAST is killed and Run returns a
	// *TimeoutError. 0: none but ctx's.
	Timeout time.Duration
	// Report asks for the user's report format (Format.ReportArg) rather
	// than the tabular lines the merge reads: a regeneration.
	Report bool
	// Dir is the working directory, where a relative DB is looked for
	// first and which BLAST's reports name it by as given; "": the DB's
	// directory, with DB and Query made absolute.
	Dir string
	// TaxDBDir is where BLAST finds taxdb.btd/bti, for the taxonomy
	// columns: put first on BLASTDB (BLAST looks there and in the working
	// directory, not beside the database). Empty: BLASTDB as inherited.
	TaxDBDir string
}

// Argv is the command line, program first.
func (inv Invocation) Argv() []string {
	outfmt := inv.Format.Arg()
	if inv.Report {
		outfmt = inv.Format.ReportArg()
	}
	argv := []string{inv.Program.Command(), "-db", inv.DB, "-query", inv.Query, "-outfmt", outfmt}
	if inv.MaxTargetSeqs > 0 {
		argv = append(argv, "-max_target_seqs", strconv.Itoa(inv.MaxTargetSeqs))
	}
	if inv.Evalue > 0 {
		argv = append(argv, "-evalue", strconv.FormatFloat(inv.Evalue, 'g', -1, 64))
	}
	if inv.Threads > 1 {
		argv = append(argv, "-num_threads", strconv.Itoa(inv.Threads))
	}
	return append(argv, Args(inv.Options)...)
}

// ExitError is a BLAST run that did not succeed.
type ExitError struct {
	Argv       []string
	ExitCode   int    // -1 when killed by a signal
	Signal     string // set when killed by a signal
	StderrTail string
}

// UsageError reports whether BLAST+ refused its arguments rather than
// failing a search: exit code 1 with an argument or options error.
func (e *ExitError) UsageError() bool {
	return e.ExitCode == 1 && (strings.Contains(e.StderrTail, "CArgException") || strings.Contains(e.StderrTail, "options error:") ||
		strings.Contains(e.StderrTail, "Error: Argument"))
}

func (e *ExitError) Error() string {
	how := fmt.Sprintf("exit code %d", e.ExitCode)
	if e.Signal != "" {
		how = "signal " + e.Signal
	}
	return fmt.Sprintf("%s failed (%s): %s", e.Argv[0], how, e.StderrTail)
}

// stderrTailBytes bounds how much of BLAST's stderr an error carries.
const stderrTailBytes = 2048

// usageReportEnv keeps BLAST+ from reporting each run to NCBI (2.12 does
// by default): workers often have no route out, and each report would
// wait on it. Users opt in by setting BLAST_USAGE_REPORT themselves.
const usageReportEnv = "BLAST_USAGE_REPORT"

// runEnv is a BLAST run's environment.
func runEnv(batch int, taxdbDir string) []string {
	env := os.Environ()
	if taxdbDir != "" {
		path := taxdbDir
		if old := os.Getenv("BLASTDB"); old != "" {
			path += string(os.PathListSeparator) + old
		}
		env = append(env, "BLASTDB="+path)
	}
	if _, set := os.LookupEnv(usageReportEnv); !set {
		env = append(env, usageReportEnv+"=false")
	}
	// Set always: blastn's own size adapts to hits without it (batch.go).
	return append(env, BatchEnvValue(max(batch, Alone)))
}

// Run executes the invocation and returns its standard output, the
// queries searched in BLAST+ batches of inv.BatchLetters.
//
// BLAST runs in the database's directory: it looks for an alias file's
// DBLIST names in its working directory before the alias file's own, so a
// caller's directory holding volumes of the same names (an NCBI database
// the shards were copied from, say) would be searched instead.
func Run(ctx context.Context, inv Invocation) ([]byte, error) {
	dir := inv.Dir
	paths := []*string{&inv.TaxDBDir}
	if dir == "" {
		paths = append(paths, &inv.DB, &inv.Query)
	}
	for _, p := range paths {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, fmt.Errorf("running %s: %w", inv.Program, err)
		}
		*p = abs
	}
	if dir == "" {
		dir = filepath.Dir(inv.DB)
	}
	if needsListFiles(inv.Options) {
		tmp, err := os.MkdirTemp("", "blastfleet-lists-")
		if err != nil {
			return nil, fmt.Errorf("running %s: %w", inv.Program, err)
		}
		defer os.RemoveAll(tmp)
		if inv.Options, err = withListFiles(inv.Options, tmp); err != nil {
			return nil, err
		}
	}
	argv := inv.Argv()
	// Our own kills (a limit reached) are told from the caller's by runCtx.
	runCtx, kill := context.WithCancel(ctx)
	defer kill()
	if inv.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(runCtx, inv.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, argv[0], argv[1:]...)
	// A child BLAST left behind (it spawns none, a wrapper might) must not
	// hold the pipes, and so Run, open after BLAST itself is dead.
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = runEnv(inv.BatchLetters, inv.TaxDBDir)
	cmd.Dir = dir
	stdout := &cappedBuffer{max: inv.MaxOutput, kill: kill}
	stderr := &tailBuffer{max: stderrKeptBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	started := time.Now()
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", argv[0], ctx.Err())
	case stdout.over:
		return nil, &OutputLimitError{Program: argv[0], Max: inv.MaxOutput}
	case err == nil:
		return stdout.Bytes(), nil
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return nil, &TimeoutError{Program: argv[0], Timeout: inv.Timeout, Ran: time.Since(started)}
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil, fmt.Errorf("running %s: %w", argv[0], err)
	}
	xe := &ExitError{Argv: argv, ExitCode: ee.ExitCode(), StderrTail: tail(stderr.Bytes())}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		xe.Signal = ws.Signal().String()
	}
	return nil, xe
}

// tail keeps the end of BLAST's stderr, with its "Error:" lines first:
// on a bad argument BLAST prints its whole usage before the one line that
// says what was wrong.
func tail(b []byte) string {
	var errs []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "Error:") || strings.Contains(l, "error:") {
			errs = append(errs, strings.TrimSpace(l))
		}
	}
	if len(errs) > 0 {
		// The last of them, as many as the bound holds.
		n, i := 0, len(errs)
		for i > 0 && n+len(errs[i-1])+3 <= stderrTailBytes {
			i--
			n += len(errs[i]) + 3
		}
		if i == len(errs) { // one line longer than the bound: its end
			l := errs[i-1]
			return l[len(l)-stderrTailBytes:]
		}
		return strings.Join(errs[i:], " | ")
	}
	b = bytes.TrimSpace(b)
	if len(b) > stderrTailBytes {
		b = b[len(b)-stderrTailBytes:]
	}
	if len(b) == 0 {
		return "(no stderr)"
	}
	return strings.ReplaceAll(string(b), "\n", " | ")
}

// Version returns the BLAST+ version string (e.g. "2.12.0+") of a program.
func Version(ctx context.Context, program string) (string, error) {
	out, err := exec.CommandContext(ctx, program, "-version").Output()
	if err != nil {
		return "", fmt.Errorf("%s -version: %w (is BLAST+ installed? hack/install-deps.sh installs it)", program, err)
	}
	// "blastp: 2.12.0+"
	first, _, _ := strings.Cut(string(out), "\n")
	_, v, ok := strings.Cut(first, ": ")
	if !ok {
		return "", fmt.Errorf("%s -version: unexpected output %q", program, first)
	}
	return strings.TrimSpace(v), nil
}
