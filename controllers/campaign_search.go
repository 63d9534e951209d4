package controllers

import (
	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/plan/search"
	"github.com/blastfleet/blastfleet/internal/plan/search/fromapi"
)

// campaignSearch is the campaign's search, converted and checked by
// package fromapi as submit checks it, before any Job starts.
func campaignSearch(c *v1alpha1.SearchCampaign) (search.Spec, error) {
	return fromapi.Spec(&c.Spec)
}
