package blastdb

import (
	"reflect"
	"testing"
)

func TestParseMaskAlgorithms(t *testing.T) {
	info := `Database: orig db
	300 sequences; 302,539 total bases

Date: Nov 29, 2026  2:31 AM	Longest sequence: 1,493 bases

BLASTDB Version: 5

Available filtering algorithms applied to database sequences:

Algorithm ID Algorithm name                          Algorithm options                       
11           dust                                    window=64; level=20; linker=1           
21           seg                                     default                                 

Volumes:
	/tmp/rv/orig
`
	got, err := parseMaskAlgorithms(info)
	if err != nil {
		t.Fatal(err)
	}
	want := []MaskAlgorithm{{11, "dust", "window=64; level=20; linker=1"}, {21, "seg", "default"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got, _ := parseMaskAlgorithms("Database: x\n\nVolumes:\n\t/x\n"); got != nil {
		t.Errorf("no masks: got %+v", got)
	}
}
