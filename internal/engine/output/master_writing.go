package output

// MasterWriting has workers send their whole results to the master (rank
// 0), which writes every block itself, contiguously, between scheduling
// decisions (S3aSim's MW, mpiBLAST 1.2).
type MasterWriting struct{}

func (MasterWriting) Name() string { return "master-writing" }
func (MasterWriting) Flow() Flow   { return ToMaster }

func (MasterWriting) Plan(b *Block, _ Layout) []Write {
	return []Write{{Writer: 0, From: 0, To: len(b.Lines)}}
}
