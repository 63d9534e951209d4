package simulate

import (
	"flag"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseHistogram(t *testing.T) {
	tests := []struct {
		in   string
		want []Bucket
	}{
		{"100-500:0.5,500-2000:0.4,2000-10000:0.1", []Bucket{{100, 500, 0.5}, {500, 2000, 0.4}, {2000, 10000, 0.1}}},
		{"1000-2000", []Bucket{{1000, 2000, 1}}},
		{"7", []Bucket{{7, 7, 1}}},
		{" 0-3:2 , 5:1", []Bucket{{0, 3, 2}, {5, 5, 1}}},
	}
	for _, tt := range tests {
		h, err := ParseHistogram(tt.in)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if !slices.Equal(h.Buckets, tt.want) {
			t.Fatalf("%q: got %v, want %v", tt.in, h.Buckets, tt.want)
		}
		back, err := ParseHistogram(h.String())
		if err != nil || !slices.Equal(back.Buckets, h.Buckets) {
			t.Fatalf("%q: String %q does not parse back (%v)", tt.in, h.String(), err)
		}
	}
}

func TestParseHistogramErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "empty"},
		{"100-50:1", `bucket 1 "100-50:1": max 50 is below min 100`},
		{"1-2:0.5,abc-5:1", `bucket 2 "abc-5:1": min "abc"`},
		{"1-2:0.5,3-x:1", `bucket 2 "3-x:1": max "x"`},
		{"1-2:heavy", `bucket 1 "1-2:heavy": weight "heavy"`},
		{"1-2:1,3-4:0", `bucket 2 "3-4:0": weight 0 must be a positive finite number`},
		{"1-2:-1", "weight -1 must be a positive finite number"},
		{"1-2:NaN", "weight NaN"},
		{"1-2:Inf", "weight +Inf"},
		{"-5-3:1", `min ""`},
		{"1-2,,3-4", `bucket 2 ""`},
		{"1-2000000000000:1", "above"},
	}
	for _, tt := range tests {
		_, err := ParseHistogram(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got error %v, want one containing %q", tt.in, err, tt.want)
		}
	}
	if err := (Histogram{}).Validate(); err == nil {
		t.Error("a histogram without buckets validated")
	}
}

// *Histogram is a flag value, so the engine can take one per flag.
func TestHistogramFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	h := MustHistogram("1:1")
	fs.Var(&h, "sizes", "")
	if err := fs.Parse([]string{"-sizes", "10-20:3,30:1"}); err != nil {
		t.Fatal(err)
	}
	if h.String() != "10-20:3,30:1" {
		t.Fatalf("after -sizes: %s", h)
	}
	err := fs.Parse([]string{"-sizes", "10-20:3,30-1:1"})
	if err == nil || !strings.Contains(err.Error(), "bucket 2") {
		t.Fatalf("bad flag value: %v", err)
	}
}

func TestHistogramSampleMatchesWeights(t *testing.T) {
	h := MustHistogram("100-500:0.5,500-2000:0.4,2000-10000:0.1")
	if m := h.Mean(); math.Abs(m-1250) > 1e-9 {
		t.Fatalf("Mean %v, want 1250 (0.5×300 + 0.4×1250 + 0.1×6000)", m)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 40000
	var sum float64
	var inBucket [3]int
	for range n {
		x := h.Sample(r)
		sum += float64(x)
		switch {
		case x >= 100 && x < 500:
			inBucket[0]++
		case x >= 500 && x < 2000:
			inBucket[1]++
		case x >= 2000 && x <= 10000:
			inBucket[2]++
		default:
			t.Fatalf("sample %d outside every bucket", x)
		}
	}
	if mean := sum / n; math.Abs(mean-1250)/1250 > 0.03 {
		t.Errorf("sample mean %.1f, want 1250 within 3%%", mean)
	}
	for i, w := range []float64{0.5, 0.4, 0.1} {
		if f := float64(inBucket[i]) / n; math.Abs(f-w) > 0.015 {
			t.Errorf("bucket %d drawn %.3f of the time, weight %.1f", i+1, f, w)
		}
	}
}

// The default lengths stand for nt as S3aSim described it: minimum 6,
// mean 4401.
func TestNTSizesMatchThePaper(t *testing.T) {
	h := MustHistogram(NTSizes)
	if h.Min() != 6 {
		t.Errorf("min %d, want nt's 6", h.Min())
	}
	if m := h.Mean(); math.Abs(m-4401)/4401 > 0.005 {
		t.Errorf("mean %.1f, want nt's 4401 within 0.5%%", m)
	}
}
