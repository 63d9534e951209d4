package planning

import (
	"context"
	"errors"
	"fmt"

	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// readTaxidList reads a taxid list object into s's options (the plan
// carries the ids, of any number, and partitions never read the file).
// It is in the campaign's own store, beside its queries: the output's
// credentials.
func readTaxidList(ctx context.Context, s *search.Spec) error {
	l := s.TaxidList
	if l == nil || s.TaxidListRead() {
		return nil
	}
	st, key, err := objstore.OpenObjectAs(ctx, objstore.RoleOutput, l.Location)
	if err != nil {
		return fmt.Errorf("-%s %s: %w", l.Option(), l.Location, err)
	}
	rc, err := st.Get(ctx, key)
	if errors.Is(err, objstore.ErrNotExist) {
		return fmt.Errorf("-%s: the taxid list %s does not exist", l.Option(), l.Location)
	} else if err != nil {
		return fmt.Errorf("-%s: reading %s: %w", l.Option(), l.Location, err)
	}
	defer rc.Close()
	return s.ReadTaxidList(rc)
}
