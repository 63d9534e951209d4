package ledger

import (
	"fmt"
	"strings"
)

// Range is a chunk's queries [First, End) by index in the queries file;
// it is the chunk's identity, so split children never collide with
// other chunks.
type Range struct {
	First int `json:"first"`
	End   int `json:"end"`
}

func (r Range) String() string { return fmt.Sprintf("[%d,%d)", r.First, r.End) }

// Len is the number of queries.
func (r Range) Len() int { return r.End - r.First }

const chunksDir = "chunks/"

// dir is the chunk's key prefix; zero padding makes List sort by query.
func (r Range) dir() string { return fmt.Sprintf("%s%09d-%09d/", chunksDir, r.First, r.End) }

// Object names inside a chunk's directory.
const (
	leaseName    = "lease.json"
	attemptsName = "attempts.json"
	commitName   = "commit.json"
	resultPrefix = "result-"
)

// parseChunkKey splits "chunks/000000000-000000005/lease.json".
func parseChunkKey(key string) (Range, string, bool) {
	rest, ok := strings.CutPrefix(key, chunksDir)
	if !ok {
		return Range{}, "", false
	}
	dir, name, ok := strings.Cut(rest, "/")
	if !ok {
		return Range{}, "", false
	}
	var r Range
	if n, err := fmt.Sscanf(dir, "%d-%d", &r.First, &r.End); n != 2 || err != nil {
		return Range{}, "", false
	}
	return r, name, true
}

// safeName keeps a holder name usable inside an object key.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "anon"
	}
	return string(b)
}
