package controllers

import "testing"

func TestProgress(t *testing.T) {
	for _, c := range []struct {
		done, failed, total int
		want                string
	}{
		{0, 0, 0, ""},
		{0, 0, 71, "0%"},
		{40, 0, 100, "40%"},
		{100, 0, 100, "100%"},
		{0, 71, 71, "0% (71 failed)"}, // every query failed: never 100%
		{69, 2, 71, "97% (2 failed)"},
	} {
		if got := progress(c.done, c.failed, c.total); got != c.want {
			t.Errorf("progress(%d, %d, %d) = %q, want %q", c.done, c.failed, c.total, got, c.want)
		}
	}
}
