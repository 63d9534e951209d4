package refsearch

import "testing"

func TestSplitQuery(t *testing.T) {
	for out, want := range map[string]string{
		"":                         "",
		"q1\ts1\nq1\ts2\nq2\ts1\n": "",
		"q1\ts1\nq2\ts1\nq1\ts2\n": "q1",
	} {
		if got := SplitQuery([]byte(out)); got != want {
			t.Errorf("SplitQuery(%q) = %q, want %q", out, got, want)
		}
	}
}
