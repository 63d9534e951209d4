package synth

import "testing"

func TestBackTranslate(t *testing.T) {
	got, err := BackTranslate([]byte(">p1 a protein\nMKW\nC\n"))
	if err != nil || string(got) != ">p1 a protein\nATGAAATGG\nTGT\n" {
		t.Errorf("BackTranslate = %q, %v", got, err)
	}
	if _, err := BackTranslate([]byte(">p1\nMXK\n")); err == nil {
		t.Error("an X: no error")
	}
}
