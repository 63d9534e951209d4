package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// sample is one line of Prometheus' text format: a metric name, its
// labels and its value.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseSamples reads the text exposition format (what /metrics serves).
func parseSamples(r io.Reader) ([]sample, error) {
	var out []sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func parseSample(line string) (sample, error) {
	s := sample{labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return s, fmt.Errorf("metrics line %q: no value", line)
	}
	s.name, line = line[:i], line[i:]
	if line[0] == '{' {
		rest, err := parseLabels(line[1:], s.labels)
		if err != nil {
			return s, fmt.Errorf("metrics line of %s: %w", s.name, err)
		}
		line = rest
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return s, fmt.Errorf("metrics line of %s: no value", s.name)
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return s, fmt.Errorf("metrics line of %s: %w", s.name, err)
	}
	s.value = v
	return s, nil
}

// parseLabels reads `a="x",b="y"}` into m and returns what follows the brace.
func parseLabels(in string, m map[string]string) (string, error) {
	for {
		in = strings.TrimLeft(in, " ,")
		if strings.HasPrefix(in, "}") {
			return in[1:], nil
		}
		eq := strings.IndexByte(in, '=')
		if eq < 0 || len(in) < eq+2 || in[eq+1] != '"' {
			return "", fmt.Errorf("bad labels at %q", in)
		}
		name := strings.TrimSpace(in[:eq])
		var b strings.Builder
		j := eq + 2
		for ; j < len(in) && in[j] != '"'; j++ {
			if in[j] == '\\' && j+1 < len(in) {
				j++
				if in[j] == 'n' {
					b.WriteByte('\n')
					continue
				}
			}
			b.WriteByte(in[j])
		}
		if j >= len(in) {
			return "", fmt.Errorf("unterminated label %s", name)
		}
		m[name] = b.String()
		in = in[j+1:]
	}
}
