package simulate

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Bucket is one box of a histogram: integers in [Min, Max], each equally
// likely, drawn with probability Weight / (sum of weights).
type Bucket struct {
	Min, Max int64
	Weight   float64
}

// Histogram is S3aSim's box histogram. The zero value has no buckets and is
// invalid; use ParseHistogram or a literal.
type Histogram struct {
	Buckets []Bucket
}

// ParseHistogram reads a compact flag value: comma-separated buckets
// "min-max:weight", e.g. "100-500:0.5,500-2000:0.4,2000-10000:0.1". A
// single value "n" stands for "n-n"; a missing ":weight" means weight 1.
// Weights are relative: they need not sum to 1.
func ParseHistogram(s string) (Histogram, error) {
	var h Histogram
	if strings.TrimSpace(s) == "" {
		return h, errors.New("histogram is empty: want buckets like \"100-500:0.5,500-2000:0.5\"")
	}
	for i, part := range strings.Split(s, ",") {
		b, err := parseBucket(strings.TrimSpace(part))
		if err != nil {
			return Histogram{}, fmt.Errorf("histogram bucket %d %q: %w", i+1, part, err)
		}
		h.Buckets = append(h.Buckets, b)
	}
	return h, h.Validate()
}

// MustHistogram is ParseHistogram for constants; it panics on error.
func MustHistogram(s string) Histogram {
	h, err := ParseHistogram(s)
	if err != nil {
		panic(err)
	}
	return h
}

func parseBucket(s string) (Bucket, error) {
	b := Bucket{Weight: 1}
	rng, weight, hasWeight := strings.Cut(s, ":")
	if hasWeight {
		w, err := strconv.ParseFloat(weight, 64)
		if err != nil {
			return b, fmt.Errorf("weight %q is not a number", weight)
		}
		b.Weight = w
	}
	lo, hi, isRange := strings.Cut(rng, "-")
	if !isRange {
		hi = lo
	}
	var err error
	if b.Min, err = strconv.ParseInt(lo, 10, 64); err != nil {
		return b, fmt.Errorf("min %q is not a non-negative integer", lo)
	}
	if b.Max, err = strconv.ParseInt(hi, 10, 64); err != nil {
		return b, fmt.Errorf("max %q is not a non-negative integer", hi)
	}
	return b, b.validate()
}

// maxValue keeps sums of samples far from overflow.
const maxValue = 1 << 40

func (b Bucket) validate() error {
	switch {
	case b.Min < 0:
		return fmt.Errorf("min %d is negative", b.Min)
	case b.Max < b.Min:
		return fmt.Errorf("max %d is below min %d", b.Max, b.Min)
	case b.Max > maxValue:
		return fmt.Errorf("max %d is above %d", b.Max, int64(maxValue))
	case !(b.Weight > 0) || b.Weight > 1e300:
		return fmt.Errorf("weight %v must be a positive finite number", b.Weight)
	}
	return nil
}

// Validate reports the first bad bucket, by its 1-based position.
func (h Histogram) Validate() error {
	if len(h.Buckets) == 0 {
		return errors.New("histogram has no buckets")
	}
	for i, b := range h.Buckets {
		if err := b.validate(); err != nil {
			return fmt.Errorf("histogram bucket %d (%s): %w", i+1, b, err)
		}
	}
	return nil
}

func (b Bucket) String() string {
	w := strconv.FormatFloat(b.Weight, 'g', -1, 64)
	if b.Min == b.Max {
		return fmt.Sprintf("%d:%s", b.Min, w)
	}
	return fmt.Sprintf("%d-%d:%s", b.Min, b.Max, w)
}

// String is the flag form; ParseHistogram(h.String()) gives h back.
func (h Histogram) String() string {
	parts := make([]string, len(h.Buckets))
	for i, b := range h.Buckets {
		parts[i] = b.String()
	}
	return strings.Join(parts, ",")
}

// Set and Type make *Histogram a flag.Value and a pflag.Value.
func (h *Histogram) Set(s string) error {
	p, err := ParseHistogram(s)
	if err != nil {
		return err
	}
	*h = p
	return nil
}

// Type names the flag's value in help text.
func (h *Histogram) Type() string { return "histogram" }

func (h Histogram) clone() Histogram {
	return Histogram{Buckets: slices.Clone(h.Buckets)}
}

func (h Histogram) totalWeight() float64 {
	var t float64
	for _, b := range h.Buckets {
		t += b.Weight
	}
	return t
}

// Mean is the expected value of Sample.
func (h Histogram) Mean() float64 {
	var m float64
	for _, b := range h.Buckets {
		m += b.Weight * (float64(b.Min) + float64(b.Max)) / 2
	}
	return m / h.totalWeight()
}

// Min and Max bound every sample.
func (h Histogram) Min() int64 {
	m := h.Buckets[0].Min
	for _, b := range h.Buckets[1:] {
		m = min(m, b.Min)
	}
	return m
}

// Max is the largest value Sample can return.
func (h Histogram) Max() int64 {
	m := h.Buckets[0].Max
	for _, b := range h.Buckets[1:] {
		m = max(m, b.Max)
	}
	return m
}

// Sample draws one value: a bucket by weight, then uniformly within it.
func (h Histogram) Sample(r *rand.Rand) int64 {
	x := r.Float64() * h.totalWeight()
	b := h.Buckets[len(h.Buckets)-1]
	for _, c := range h.Buckets {
		if x < c.Weight {
			b = c
			break
		}
		x -= c.Weight
	}
	return b.Min + r.Int64N(b.Max-b.Min+1)
}
