package blast

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// fakeBLAST puts a blastn on PATH that runs script.
func fakeBLAST(t *testing.T, script string) { testenv.FakeBLAST(t, script) }

func limitedRun(t *testing.T, inv Invocation) ([]byte, error, time.Duration) {
	t.Helper()
	f, err := ParseFormat("6")
	if err != nil {
		t.Fatal(err)
	}
	inv.Program, inv.DB, inv.Query, inv.Format = Blastn, "db", "q.fa", f
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	out, err := Run(ctx, inv)
	return out, err, time.Since(start)
}

// A BLAST that prints without end is killed at the cap, not left to fill
// the worker's memory (nor blocked on a full pipe).
func TestRunOutputLimit(t *testing.T) {
	fakeBLAST(t, "exec yes 'q1\ts1\t99.0'")
	_, err, took := limitedRun(t, Invocation{MaxOutput: 1 << 20})
	var le *OutputLimitError
	if !errors.As(err, &le) || le.Max != 1<<20 {
		t.Fatalf("err = %v, want an OutputLimitError at 1 MiB", err)
	}
	if took > 10*time.Second {
		t.Errorf("killed after %v", took)
	}
	// Under the cap, the output is whole.
	fakeBLAST(t, "printf 'q1\\ts1\\n'")
	if out, err, _ := limitedRun(t, Invocation{MaxOutput: 6}); err != nil || string(out) != "q1\ts1\n" {
		t.Errorf("under the cap: %q, %v", out, err)
	}
}

// BLAST runs without usage reports unless the user asked for them.
func TestRunUsageReport(t *testing.T) {
	fakeBLAST(t, `printf '%s\n' "$BLAST_USAGE_REPORT"`)
	if out, err, _ := limitedRun(t, Invocation{}); err != nil || string(out) != "false\n" {
		t.Errorf("default: %q, %v", out, err)
	}
	t.Setenv("BLAST_USAGE_REPORT", "true")
	if out, err, _ := limitedRun(t, Invocation{}); err != nil || string(out) != "true\n" {
		t.Errorf("opted in: %q, %v", out, err)
	}
}

// A hung BLAST is killed at its timeout with an error saying so; one that
// ends in time is not touched.
func TestRunTimeout(t *testing.T) {
	fakeBLAST(t, "exec sleep 60")
	_, err, took := limitedRun(t, Invocation{Timeout: 300 * time.Millisecond})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Timeout != 300*time.Millisecond {
		t.Fatalf("err = %v, want a TimeoutError", err)
	}
	if took > 10*time.Second {
		t.Errorf("killed after %v", took)
	}
	fakeBLAST(t, "sleep 0.1; printf 'q1\\ts1\\n'")
	if out, err, _ := limitedRun(t, Invocation{Timeout: 20 * time.Second}); err != nil || string(out) != "q1\ts1\n" {
		t.Errorf("in time: %q, %v", out, err)
	}
}

// A BLAST that fills stderr without end (warnings per query, say) costs a
// bounded tail of memory, and its error a bounded message ending with
// what it said last.
func TestRunStderrBounded(t *testing.T) {
	fakeBLAST(t, `head -c 268435456 /dev/zero | tr '\0' x >&2; i=0; while [ $i -lt 20000 ]; do echo "Error: query $i is odd" >&2; i=$((i+1)); done; echo "Error: the last" >&2; exit 3`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err, _ := limitedRun(t, Invocation{})
	runtime.ReadMemStats(&after)
	var xe *ExitError
	if !errors.As(err, &xe) || xe.ExitCode != 3 {
		t.Fatalf("err = %v, want an ExitError with code 3", err)
	}
	if len(xe.StderrTail) > stderrTailBytes || !strings.HasSuffix(xe.StderrTail, "Error: the last") {
		t.Errorf("stderr tail of %d bytes ending %q", len(xe.StderrTail), xe.StderrTail[max(0, len(xe.StderrTail)-40):])
	}
	// 256 MiB went through; the run allocates a small fraction of it
	// (io.Copy's buffers and the kept tail).
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("Run allocated %d MiB for 256 MiB of stderr", grew>>20)
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 8}
	for _, s := range []string{"abc", "defghij", "k", strings.Repeat("z", 20) + "12345678", "9"} {
		b.Write([]byte(s))
	}
	if got := string(b.Bytes()); got != "23456789" {
		t.Errorf("tail %q, want %q", got, "23456789")
	}
}
