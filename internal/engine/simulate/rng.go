package simulate

import "math/rand/v2"

// Each kind of draw has its own domain, so e.g. query 3's length and query
// 3's hit count never share a stream.
const (
	domainQueries  uint64 = iota + 1 // all query lengths, in order
	domainSubjects                   // all database sequence lengths, in order
	domainCount                      // (q): how many hits query q has
	domainAlloc                      // (q): which shard each of q's hits is in
	domainHits                       // (q, s): the hits of query q in shard s
)

// stream returns a PRNG keyed by (seed, domain, a, b): a counter-based
// scheme, so a draw depends on its key only, never on what else was drawn
// before it in the process.
func stream(seed, domain, a, b uint64) *rand.Rand {
	h := mix(seed)
	h = mix(h ^ domain)
	h = mix(h ^ a)
	h = mix(h ^ b)
	return rand.New(rand.NewPCG(h, mix(h^0x6a09e667f3bcc909)))
}

// mix is SplitMix64's finalizer: a bijection that spreads every input bit
// over the output, so nearby keys give unrelated streams.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
