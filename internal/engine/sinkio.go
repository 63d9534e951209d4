package engine

import (
	"context"

	"github.com/blastfleet/blastfleet/internal/engine/output"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// writeTo writes one range of a unit's output. Writes are megabytes (or,
// under worker-individual, a worker's lines of one), so opening the target
// per write costs little and holds nothing open between writes.
func writeTo(ctx context.Context, t output.Target, offset int64, part int, data []byte) (objstore.Part, error) {
	wr, err := output.OpenWriter(ctx, t)
	if err != nil {
		return objstore.Part{}, err
	}
	defer wr.Close()
	return wr.Write(ctx, offset, part, data)
}
