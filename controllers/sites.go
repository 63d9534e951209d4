package controllers

import (
	"fmt"
	"strings"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// DefaultSite names the partitions this operator runs, in the ledger and
// in status.sites, unless the configuration's site says otherwise.
const DefaultSite = config.DefaultSite

// maxSites bounds status.sites (the CRD's MaxItems).
const maxSites = 64

// siteProgress is the ledger's per-site progress as the status shows it.
func siteProgress(sites []ledger.SiteStatus) ([]v1alpha1.SiteProgress, string) {
	var out []v1alpha1.SiteProgress
	var summary []string
	for _, s := range sites {
		if len(out) == maxSites {
			break
		}
		out = append(out, v1alpha1.SiteProgress{Name: s.Name, ChunksCommitted: int32(s.ChunksCommitted), QueriesDone: int32(s.QueriesDone),
			Running: int32(s.Running), LettersPerSecond: int64(s.LettersPerSecond)})
		summary = append(summary, fmt.Sprintf("%s=%d", s.Name, s.QueriesDone))
	}
	return out, strings.Join(summary, " ")
}
