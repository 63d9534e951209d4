package campaign_e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// requestCounts are MinIO's S3 request counters by API name, read from its
// Prometheus endpoint (public: newEnv sets MINIO_PROMETHEUS_AUTH_TYPE).
type requestCounts map[string]float64

var requestsRe = regexp.MustCompile(`^minio_api_requests_total\{([^}]*)\} ([0-9.e+]+)$`)
var nameRe = regexp.MustCompile(`name="([^"]+)"`)

func (e *env) requests(t *testing.T) requestCounts {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(e.minio.Endpoint + "/minio/metrics/v3/api/requests")
	if err != nil {
		t.Fatalf("MinIO metrics: %v", err)
	}
	defer resp.Body.Close()
	out := requestCounts{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := requestsRe.FindStringSubmatch(sc.Text())
		if m == nil || !strings.Contains(m[1], `type="s3"`) {
			continue
		}
		n := nameRe.FindStringSubmatch(m[1])
		if n == nil {
			continue
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		out[n[1]] += v
	}
	return out
}

// sub is c - before.
func (c requestCounts) sub(before requestCounts) requestCounts {
	out := requestCounts{}
	for k, v := range c {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

func (c requestCounts) total() float64 {
	var n float64
	for _, v := range c {
		n += v
	}
	return n
}

func (c requestCounts) String() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%g", k, c[k]))
	}
	return strings.Join(parts, " ")
}

// perChunk divides every count by n.
func (c requestCounts) perChunk(n int) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%.1f", k, c[k]/float64(n)))
	}
	return strings.Join(parts, " ")
}

// ledgerReplay replays, in process, the ledger calls a master makes for
// each chunk of a finished campaign (Acquire, a Renew, Commit of the
// chunk's committed result bytes) on a fresh campaign at loc with the same
// plan, through a CountingStore on the same MinIO, then the final Status
// and Assemble. It returns the ledger's own requests and seconds per
// chunk, without BLAST or the result upload's data.
func ledgerReplay(t *testing.T, src objstore.Store, loc string) (perChunk map[string]float64, reqs float64, secs float64, chunks int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	plan, err := ledger.ReadPlan(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string][]byte{}
	for _, c := range readChunks(t, src) {
		if key, _ := c.commit["resultKey"].(string); key != "" {
			b, _, err := src.GetBytes(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			results[c.r] = b
		}
	}
	p := *plan
	p.CreatedAt = time.Time{}
	dst := mustOpen(t, loc)
	if err := ledger.WritePlan(ctx, dst, &p); err != nil {
		t.Fatal(err)
	}
	cs := ledger.NewCountingStore(dst)
	l, err := ledger.Open(ctx, cs, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs.Reset()
	start := time.Now()
	for {
		ls, err := l.Acquire(ctx, "replay")
		if err == ledger.ErrNoChunk {
			break
		}
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		if err := ls.Renew(ctx); err != nil {
			t.Fatal(err)
		}
		data := results[ls.Range.String()]
		if err := ls.Commit(ctx, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		chunks++
	}
	if _, err := l.Assemble(ctx); err != nil {
		t.Fatal(err)
	}
	secs = time.Since(start).Seconds()
	perChunk = map[string]float64{}
	for k, v := range cs.Counts() {
		perChunk[k] = float64(v) / float64(chunks)
	}
	return perChunk, float64(cs.Total()), secs, chunks
}
