package main

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// scraper reads one /metrics endpoint and keeps running totals of its
// counters (histogram buckets included) across restarts of the process
// behind it: a value lower than the last one means the process started
// again from zero.
type scraper struct {
	url    string
	token  string
	client *http.Client
	keep   func(sample) bool

	mu     sync.Mutex
	last   map[string]float64 // the process's own value at the last scrape
	total  map[string]float64 // summed over its lifetimes
	gauges map[string]float64 // gauges' latest values
	peaks  map[string]float64 // gauges' highest values
	kinds  map[string]sample  // each key's name and labels
	marked map[string]float64 // the totals at mark, nil before
	errors int
}

// mark notes the totals now, for sinceMark to count from.
func (s *scraper) mark() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.marked = maps.Clone(s.total)
}

// sinceMark is a scraper whose totals are those counted after mark.
func (s *scraper) sinceMark() *scraper {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := newScraper(s.url, s.token, s.client, s.keep)
	for k, v := range s.total {
		d.total[k] = v - s.marked[k]
		d.kinds[k] = s.kinds[k]
	}
	return d
}

func newScraper(url, token string, client *http.Client, keep func(sample) bool) *scraper {
	return &scraper{url: url, token: token, client: client, keep: keep,
		last: map[string]float64{}, total: map[string]float64{}, gauges: map[string]float64{}, peaks: map[string]float64{}, kinds: map[string]sample{}}
}

func sampleKey(s sample) string {
	names := make([]string, 0, len(s.labels))
	for n := range s.labels {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(s.name)
	for _, n := range names {
		fmt.Fprintf(&b, ",%s=%s", n, s.labels[n])
	}
	return b.String()
}

// isGauge: the few gauges the bench reads; everything else it keeps is a
// counter or a histogram's cumulative count.
func isGauge(name string) bool {
	return name == "go_memstats_heap_alloc_bytes" || name == "process_resident_memory_bytes" || name == "go_goroutines"
}

// scrape reads the endpoint once and folds it into the totals.
func (s *scraper) scrape(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return err
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.failed()
		return fmt.Errorf("scraping %s: %w", s.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.failed()
		return fmt.Errorf("scraping %s: %s", s.url, resp.Status)
	}
	samples, err := parseSamples(resp.Body)
	if err != nil {
		s.failed()
		return fmt.Errorf("scraping %s: %w", s.url, err)
	}
	s.fold(samples)
	return nil
}

// fold adds one scrape's samples to the totals.
func (s *scraper) fold(samples []sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, smp := range samples {
		if !s.keep(smp) {
			continue
		}
		k := sampleKey(smp)
		s.kinds[k] = smp
		if isGauge(smp.name) {
			s.gauges[k] = smp.value
			s.peaks[k] = math.Max(s.peaks[k], smp.value)
			continue
		}
		prev, seen := s.last[k]
		switch {
		case !seen || smp.value < prev:
			s.total[k] += smp.value // first sight, or a restarted process
		default:
			s.total[k] += smp.value - prev
		}
		s.last[k] = smp.value
	}
}

func (s *scraper) failed() {
	s.mu.Lock()
	s.errors++
	s.mu.Unlock()
}

// sum adds up the totals of name's samples for which match holds,
// grouped by the label by ("" for one group).
func (s *scraper) sum(name, by string, match func(map[string]string) bool) map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]float64{}
	for k, v := range s.total {
		smp := s.kinds[k]
		if smp.name == name && (match == nil || match(smp.labels)) {
			out[smp.labels[by]] += v
		}
	}
	return out
}

// gauge is a gauge's latest and highest value.
func (s *scraper) gauge(name string) (latest, peak float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.gauges {
		if s.kinds[k].name == name {
			return v, s.peaks[k]
		}
	}
	return 0, 0
}

// quantile is histogram_quantile over the summed buckets of a histogram
// (name without _bucket) whose samples match.
func (s *scraper) quantile(q float64, name string, match func(map[string]string) bool) float64 {
	byLE := s.sum(name+"_bucket", "le", match)
	var bs []histBucket
	for le, c := range byLE {
		v, err := strconv.ParseFloat(le, 64)
		if err != nil {
			continue
		}
		bs = append(bs, histBucket{v, c})
	}
	return bucketQuantile(q, bs)
}

// histBucket is a histogram bucket: its upper bound and cumulative count.
type histBucket struct{ le, count float64 }

// bucketQuantile interpolates linearly inside the bucket the rank falls
// in, as Prometheus' histogram_quantile does.
func bucketQuantile(q float64, bs []histBucket) float64 {
	sort.Slice(bs, func(i, j int) bool { return bs[i].le < bs[j].le })
	if len(bs) == 0 || bs[len(bs)-1].count == 0 {
		return math.NaN()
	}
	rank := q * bs[len(bs)-1].count
	lower, below := 0.0, 0.0
	for _, b := range bs {
		if b.count >= rank {
			if math.IsInf(b.le, 1) {
				return lower // above the highest finite bound: that bound
			}
			if b.count == below {
				return b.le
			}
			return lower + (b.le-lower)*(rank-below)/(b.count-below)
		}
		lower, below = b.le, b.count
	}
	return lower
}
