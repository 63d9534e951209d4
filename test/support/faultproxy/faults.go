package faultproxy

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

// Faults says how often each fault is injected; each rate is a
// probability per request in [0, 1].
type Faults struct {
	// LostResponse forwards the request, lets the server act on it, then
	// drops the response: half the time the connection is cut, half the
	// time the client gets a 500 instead.
	LostResponse float64
	// Burst starts a burst of 5xx (503 SlowDown) answers, BurstLen
	// requests long (default 3), none of them forwarded.
	Burst    float64
	BurstLen int
	// Latency delays a request by up to MaxLatency (default 500ms)
	// before it is forwarded.
	Latency    float64
	MaxLatency time.Duration
	// Reset resets the client's connection (TCP RST) without forwarding.
	Reset float64
	// Bandwidth, when > 0, paces the response bodies of all requests
	// together to this many bytes per second, as a busy disk or a thin
	// link would; a change applies to responses already flowing.
	Bandwidth int64
	// AddedLatency delays every request by this much before it is
	// forwarded (beside Latency's random delays).
	AddedLatency time.Duration
	// LostWrite acknowledges a PUT (an object or a multipart part; not a
	// copy) with 200 and the ETag of its body but does not store it, as a
	// store that loses an acknowledged write does. A conditional PUT is
	// lost only if its precondition holds (the proxy asks the server with
	// the credentials given to UseCredentials; without them conditional
	// PUTs are not lost), else it gets the server's refusal.
	LostWrite float64
	// StaleList answers a LIST with an earlier answer to the same LIST,
	// the oldest the proxy kept that is at most MaxStale old (default
	// 3s), as an eventually consistent store lists objects from before
	// the latest writes. Without one kept, the LIST is forwarded.
	StaleList float64
	MaxStale  time.Duration
	// Only, when set, picks the requests faults may hit; others pass.
	Only func(*http.Request) bool
	// Max, when > 0, bounds the faults injected in all (a delay counts).
	// Bandwidth and AddedLatency are conditions, not draws: Max leaves
	// them alone.
	Max int
}

func (f Faults) validate() error {
	for _, r := range []struct {
		name string
		v    float64
	}{{"LostResponse", f.LostResponse}, {"Burst", f.Burst}, {"Latency", f.Latency}, {"Reset", f.Reset},
		{"LostWrite", f.LostWrite}, {"StaleList", f.StaleList}} {
		if !(r.v >= 0 && r.v <= 1) {
			return fmt.Errorf("faultproxy: %s rate %v outside [0, 1]", r.name, r.v)
		}
	}
	if f.BurstLen < 0 || f.MaxLatency < 0 || f.Max < 0 || f.Bandwidth < 0 || f.AddedLatency < 0 || f.MaxStale < 0 {
		return fmt.Errorf("faultproxy: negative BurstLen, MaxLatency, Max, Bandwidth, AddedLatency or MaxStale")
	}
	return nil
}

func (f Faults) burstLen() int {
	if f.BurstLen == 0 {
		return 3
	}
	return f.BurstLen
}

func (f Faults) maxLatency() time.Duration {
	if f.MaxLatency == 0 {
		return 500 * time.Millisecond
	}
	return f.MaxLatency
}

func (f Faults) maxStale() time.Duration {
	if f.MaxStale == 0 {
		return 3 * time.Second
	}
	return f.MaxStale
}

// kind is what happens to one request.
type kind int

const (
	pass kind = iota
	lostCut
	lost5xx
	burst
	reset
	lostWrite // acknowledged, not stored
	staleList // answered with an earlier listing
)

// decision is one request's fate: a delay first, then its kind.
type decision struct {
	delay  time.Duration
	kind   kind
	starts bool // the first answer of a burst
}

// plan draws each request's fate from one seeded source, in the order
// requests arrive, so a run's sequence of decisions is reproducible.
type plan struct {
	rng *rand.Rand
	// store draws the store's own faults (lost writes, stale listings)
	// from a source of its own, so adding them left the schedules of
	// the other faults, for a seed, as they were.
	store    *rand.Rand
	faults   Faults
	burstTo  int // requests of the current burst still to fail
	injected int
}

func newPlan(seed uint64, f Faults) *plan {
	return &plan{rng: rand.New(rand.NewPCG(seed, 0xfa017)), store: rand.New(rand.NewPCG(seed, 0x1057)), faults: f}
}

// next decides the fate of a request faults may hit. The caller holds
// the proxy's lock.
func (p *plan) next() decision {
	f := p.faults
	var d decision
	if f.Max > 0 && p.injected >= f.Max {
		return d
	}
	if p.burstTo > 0 {
		p.burstTo--
		p.injected++
		return decision{kind: burst}
	}
	// Every draw is taken whatever the rates, so a rate change leaves the
	// other faults' schedule as it was.
	lat, latFrac, u, cut := p.rng.Float64(), p.rng.Float64(), p.rng.Float64(), p.rng.IntN(2) == 0
	if lat < f.Latency {
		d.delay = time.Duration(latFrac * float64(f.maxLatency()))
		p.injected++
		if f.Max > 0 && p.injected >= f.Max {
			return d
		}
	}
	switch {
	case u < f.LostResponse:
		d.kind = lost5xx
		if cut {
			d.kind = lostCut
		}
	case u < f.LostResponse+f.Burst:
		d.kind, d.starts = burst, true
		p.burstTo = f.burstLen() - 1
	case u < f.LostResponse+f.Burst+f.Reset:
		d.kind = reset
	default:
		return d
	}
	p.injected++
	return d
}

// nextFor decides the fate of request r, of the kind op says (what a
// lost write or a stale listing may hit). The caller holds the proxy's
// lock.
func (p *plan) nextFor(op storeOp) decision {
	d := p.next()
	u := p.store.Float64() // drawn whatever the request, as next's are
	f := p.faults
	if d.kind != pass || (f.Max > 0 && p.injected >= f.Max) {
		return d
	}
	switch {
	case op == opWrite && u < f.LostWrite:
		d.kind = lostWrite
	case op == opList && u < f.StaleList:
		d.kind = staleList
	default:
		return d
	}
	p.injected++
	return d
}
