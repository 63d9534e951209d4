package ledger

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// maxDiffs bounds the differences a refusal lists.
const maxDiffs = 5

// describeDiff names the JSON paths where two documents differ, e.g.
// "queries.sha256: stored "ab…", new "cd…"", so a refused plan says why.
func describeDiff(old, new []byte) string {
	var a, b any
	json.Unmarshal(old, &a)
	json.Unmarshal(new, &b)
	var out []string
	diffValues("", a, b, &out)
	if len(out) > maxDiffs {
		out = append(out[:maxDiffs], fmt.Sprintf("and %d more", len(out)-maxDiffs))
	}
	return strings.Join(out, "; ")
}

func diffValues(path string, a, b any, out *[]string) {
	if reflect.DeepEqual(a, b) {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := slices.Concat(slices.Collect(maps.Keys(am)), slices.Collect(maps.Keys(bm)))
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			diffValues(p, am[k], bm[k], out)
		}
		return
	}
	*out = append(*out, fmt.Sprintf("%s: stored %s, new %s", path, short(a), short(b)))
}

// short renders a JSON value, cut so a long chunk list stays readable.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}
