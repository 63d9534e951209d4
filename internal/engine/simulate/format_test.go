package simulate

import "testing"

// Expected strings are from a blastn (BLAST+ 2.12) run on this machine.
func TestFormatEvalueAsBLAST(t *testing.T) {
	for _, tt := range []struct {
		e    float64
		want string
	}{
		{0, "0.0"}, {3e-181, "0.0"}, {2.3849e-175, "2.38e-175"}, {1.2312e-16, "1.23e-16"},
		{4.2849e-16, "4.28e-16"}, {0.00051, "5.10e-04"}, {0.0123, "0.012"}, {0.456, "0.46"},
		{5.31, "5.3"}, {123.4, "123"},
	} {
		if got := formatEvalue(tt.e); got != tt.want {
			t.Errorf("formatEvalue(%g) = %q, want %q", tt.e, got, tt.want)
		}
	}
}

// Raw scores and the bit scores BLAST printed for them (blastn, reward 2,
// penalty -3, gaps 5/2).
func TestBitScoreAsBLAST(t *testing.T) {
	for _, tt := range []struct {
		score int64
		want  string
	}{
		{3458, "3119"}, {4258, "3840"}, {209, "189"}, {80, "73.4"}, {26, "24.7"}, {60, "55.4"},
	} {
		if got := formatBits(bitScore(tt.score)); got != tt.want {
			t.Errorf("score %d: bit score %q, want %q", tt.score, got, tt.want)
		}
	}
	if got := formatBits(12345.6); got != "1.235e+04" {
		t.Errorf("large bit score printed %q", got)
	}
}
