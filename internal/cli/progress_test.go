package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// Off a terminal a Bar prints a plain line now and then and a last one
// if it printed any; on one it redraws a bar in place and ends full.
func TestBar(t *testing.T) {
	var plain bytes.Buffer
	b := newBar(&plain, "downloading", 4096, Bytes, false)
	b.every = 0 // a line for every Add
	b.Add(1024)
	b.Println("a line of its own")
	b.Add(3072)
	b.Finish()
	b.Finish() // once
	want := "downloading: 1.0 KiB of 4.0 KiB (25%)\na line of its own\ndownloading: 4.0 KiB of 4.0 KiB (100%)\ndownloading: 4.0 KiB of 4.0 KiB (100%), done\n"
	if plain.String() != want {
		t.Errorf("plain:\n%q\nwant\n%q", plain.String(), want)
	}

	// A quick command off a terminal prints nothing.
	var quiet bytes.Buffer
	q := newBar(&quiet, "reading", -1, Items, false)
	q.Add(3)
	q.Finish()
	if quiet.Len() != 0 {
		t.Errorf("a quick plain display printed %q", quiet.String())
	}

	var tty bytes.Buffer
	bar := newBar(&tty, "regenerating", 3, Items, true)
	var w bytes.Buffer
	cw := bar.Writer(&w)
	if _, err := cw.Write([]byte("ab")); err != nil || w.String() != "ab" {
		t.Fatalf("Writer: %q, %v", w.String(), err)
	}
	bar.Println("above the bar")
	if b, err := io.ReadAll(bar.Reader(strings.NewReader("c"))); err != nil || string(b) != "c" {
		t.Fatalf("Reader: %q, %v", b, err)
	}
	bar.Finish()
	out := tty.String()
	if !strings.Contains(out, "\r") || !strings.Contains(out, "regenerating") || !strings.Contains(out, "3/3") || !strings.Contains(out, "above the bar\n") {
		t.Errorf("terminal display: %q", out)
	}

	// A spinner (no total) stops when finished.
	var spin bytes.Buffer
	s := newBar(&spin, "reading the ledger", -1, Items, true)
	s.Finish()
	n := spin.Len()
	time.Sleep(300 * time.Millisecond)
	if spin.Len() != n {
		t.Errorf("the spinner still draws after Finish: %q", spin.String()[n:])
	}
}
