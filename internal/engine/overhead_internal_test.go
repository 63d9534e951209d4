package engine

import (
	"math"
	"testing"
)

func TestOverheadModel(t *testing.T) {
	var o overheadModel
	// 0.06 s per task and 1e-5 s per letter.
	for i, letters := range []float64{1000, 1000, 1000, 1000} {
		o.add(letters, 0.06+1e-5*letters+float64(i)*1e-6)
	}
	if o.known() {
		t.Fatal("tasks of one size gave an estimate")
	}
	for _, letters := range []float64{5000, 20000, 80000} {
		o.add(letters, 0.06+1e-5*letters)
	}
	if !o.known() || math.Abs(o.intercept-0.06) > 0.005 || math.Abs(o.perLetter-1e-5)/1e-5 > 0.05 {
		t.Fatalf("fit a=%.4f b=%.3g, want 0.06 and 1e-5", o.intercept, o.perLetter)
	}
	// 0.06 s within 2% of a task: 2.94 s of search, 294,000 letters.
	if got := o.minLetters(); got < 280000 || got > 310000 {
		t.Fatalf("minLetters = %d, want about 294,000", got)
	}
}
