package ledger

import (
	"errors"
	"fmt"
	"testing"
)

func TestIsNews(t *testing.T) {
	for _, err := range []error{ErrNoChunk, &AllLeasedError{}, fmt.Errorf("chunk [0,1): %w", ErrAlreadyCommitted),
		&IncompleteError{Missing: []Range{{0, 1}}}} {
		if !IsNews(err) {
			t.Errorf("IsNews(%v) = false, want true", err)
		}
	}
	for _, err := range []error{nil, ErrLeaseLost, ErrPlanChanged, errors.New("503")} {
		if IsNews(err) {
			t.Errorf("IsNews(%v) = true, want false", err)
		}
	}
}
