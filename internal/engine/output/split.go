package output

// span is the lines [from, to) of a block.
type span struct{ from, to int }

// split cuts a block's lines into at most n contiguous spans of about equal
// bytes, cut at line boundaries. With minPart > 1 (S3) every span holds at
// least minPart bytes, except a block's only span (a small last block), so
// each span can be a part of its own.
func split(lines []Line, n int, minPart int64) []span {
	if len(lines) == 0 {
		return nil
	}
	var left int64 // bytes from the current span's first line on
	for _, l := range lines {
		left += l.Size
	}
	if minPart > 1 {
		n = min(n, int(left/minPart))
	}
	n = max(n, 1)
	var spans []span
	from, acc := 0, int64(0)
	for i := 0; i < len(lines)-1 && len(spans) < n-1; i++ {
		acc += lines[i].Size
		r := int64(n - len(spans)) // spans still to cut, this one included
		after, need := left-acc, (r-1)*minPart
		if acc < minPart || after < need {
			continue
		}
		// Cut at this span's share, or now if one more line would leave
		// too little for the spans after it.
		if acc >= left/r || after-lines[i+1].Size < need {
			spans = append(spans, span{from, i + 1})
			from, left, acc = i+1, after, 0
		}
	}
	if left < minPart && len(spans) > 0 {
		// A short tail joins the span before it: parts under the minimum
		// may only come last in the whole output.
		spans[len(spans)-1].to = len(lines)
	} else {
		spans = append(spans, span{from, len(lines)})
	}
	return spans
}

// held counts the bytes each rank holds of the lines in s.
func held(lines []Line, s span) map[int]int64 {
	h := map[int]int64{}
	for _, l := range lines[s.from:s.to] {
		h[l.Holder] += l.Size
	}
	return h
}
