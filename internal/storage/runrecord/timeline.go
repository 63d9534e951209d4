package runrecord

// Interval is a span of one phase on a rank's timeline, in seconds since
// the rank's start (RankSummary.Started): the Jumpshot view of S3aSim.
type Interval struct {
	Phase string  `json:"p"`
	Start float64 `json:"s"`
	End   float64 `json:"e"`
}
