package shard

// plan is the balanced assignment of sequences to shards.
type plan struct {
	assign []int // shard of each ordinal
	shards []shardPlan
}

type shardPlan struct {
	names    shardNames
	ordinals []int // ascending: shard OID order is original order
	letters  int64
}

func makePlan(o *Options, src *source) *plan {
	lengths := make([]int64, len(src.seqs))
	for i, s := range src.seqs {
		lengths[i] = s.letters
	}
	p := &plan{assign: balance(lengths, o.Shards), shards: make([]shardPlan, o.Shards)}
	for i := range p.shards {
		p.shards[i].names = namesFor(i, o.Shards, o.Name, o.Type)
	}
	for ord, sh := range p.assign {
		p.shards[sh].ordinals = append(p.shards[sh].ordinals, ord)
		p.shards[sh].letters += lengths[ord]
	}
	return p
}

func (p *plan) minLetters() int64 {
	m := p.shards[0].letters
	for _, s := range p.shards {
		m = min(m, s.letters)
	}
	return m
}

func (p *plan) maxLetters() int64 {
	m := p.shards[0].letters
	for _, s := range p.shards {
		m = max(m, s.letters)
	}
	return m
}
