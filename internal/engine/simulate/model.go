package simulate

// Model is S3aSim's stand-in for BLAST over one synthetic database. It is
// read-only after New, so tasks may run concurrently.
type Model struct {
	cfg Config
	db  *Database
	cum []float64 // letters of shards 0..s, for drawing a hit's shard
}

// New validates c and generates the database it describes.
func New(c Config) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.clone() // the caller's histograms may change; the model's must not
	m := &Model{cfg: c, db: newDatabase(&c), cum: make([]float64, c.Shards)}
	var sum float64
	for s := range m.cum {
		sum += float64(m.db.ShardLetters(s))
		m.cum[s] = sum
	}
	return m, nil
}

// Config returns a copy of the model's configuration.
func (m *Model) Config() Config { return m.cfg.clone() }

// Database returns the synthetic database.
func (m *Model) Database() *Database { return m.db }

// Queries generates the configured query set (Config.QueryCount queries).
func (m *Model) Queries() []Query {
	qs, _ := Queries(m.cfg.Seed, m.cfg.QueryCount, m.cfg.QuerySizes) // validated by New
	return qs
}
