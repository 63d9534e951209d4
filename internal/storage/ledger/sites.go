package ledger

import (
	"slices"
	"strings"
	"time"
)

// UnnamedSite is how work recorded without a site (partitions from before
// sites were recorded, or run without --site) is shown.
const UnnamedSite = "(unnamed)"

// SiteStatus is one site's part of a campaign.
type SiteStatus struct {
	Name            string `json:"name"`
	ChunksCommitted int    `json:"chunksCommitted"`
	QueriesDone     int    `json:"queriesDone"`
	// LettersDone are the query letters of its committed chunks (split
	// chunks' letters prorated by queries).
	LettersDone int64 `json:"lettersDone"`
	// Running are its live leases: chunks it is searching now.
	Running  int `json:"running"`
	Attempts int `json:"attempts"`
	// FirstStarted is its first attempt's start; LastCommitted its latest
	// commit. Their span is the site's working time.
	FirstStarted  time.Time `json:"firstStarted,omitzero"`
	LastCommitted time.Time `json:"lastCommitted,omitzero"`
	// LettersPerSecond is LettersDone over that span: the rate a deadline
	// estimate uses (0 until the site has committed).
	LettersPerSecond float64 `json:"lettersPerSecond,omitempty"`
	// ChunkSeconds is the time its committed chunks took, each from the
	// start of the attempt that committed it to the commit. LettersDone
	// over it is the rate of one chunk at a time, which, unlike
	// LettersPerSecond, does not depend on how many partitions ran.
	ChunkSeconds float64 `json:"chunkSeconds,omitempty"`
}

// siteTally gathers SiteStatus while the status scan goes.
type siteTally struct {
	sites map[string]*SiteStatus
	// commits are the committed chunks' outcomes, to time their attempts.
	commits map[Range]*outcomeRecord
}

func newSiteTally() *siteTally {
	return &siteTally{sites: map[string]*SiteStatus{}, commits: map[Range]*outcomeRecord{}}
}

func (t *siteTally) get(name string) *SiteStatus {
	if name == "" {
		name = UnnamedSite
	}
	s, ok := t.sites[name]
	if !ok {
		s = &SiteStatus{Name: name}
		t.sites[name] = s
	}
	return s
}

func (t *siteTally) leased(site string) { t.get(site).Running++ }

func (t *siteTally) committed(o *outcomeRecord, r Range, letters int64) {
	if o == nil {
		return
	}
	t.commits[r] = o
	s := t.get(o.Site)
	s.ChunksCommitted++
	s.QueriesDone += r.Len()
	s.LettersDone += letters
	if o.At.After(s.LastCommitted) {
		s.LastCommitted = o.At
	}
}

// attempted counts chunk r's attempts, and times the one that committed.
func (t *siteTally) attempted(r Range, att attemptsRecord) {
	o := t.commits[r]
	for _, a := range att.Attempts {
		s := t.get(a.Site)
		s.Attempts++
		if s.FirstStarted.IsZero() || a.StartedAt.Before(s.FirstStarted) {
			s.FirstStarted = a.StartedAt
		}
		if o != nil && o.Attempt == a.Number && !a.StartedAt.IsZero() && o.At.After(a.StartedAt) {
			t.get(o.Site).ChunkSeconds += o.At.Sub(a.StartedAt).Seconds()
		}
	}
}

// list is the sites by name, with their rates.
func (t *siteTally) list() []SiteStatus {
	var out []SiteStatus
	for _, s := range t.sites {
		if span := s.LastCommitted.Sub(s.FirstStarted).Seconds(); span > 0 && s.LettersDone > 0 {
			s.LettersPerSecond = float64(s.LettersDone) / span
		}
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b SiteStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// letters are range r's query letters: its planned chunk's, prorated by
// queries when r is part of a split chunk (0 for plans without letters).
func (l *Ledger) letters(r Range) int64 {
	cs := l.plan.Chunks // in query order
	i, _ := slices.BinarySearchFunc(cs, r.First, func(c Chunk, q int) int {
		switch {
		case c.End <= q:
			return -1
		case c.First > q:
			return 1
		}
		return 0
	})
	if i == len(cs) || cs[i].First > r.First || r.End > cs[i].End || cs[i].End == cs[i].First {
		return 0
	}
	c := cs[i]
	return c.Letters * int64(r.Len()) / int64(c.End-c.First)
}
