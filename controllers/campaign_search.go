package controllers

import (
	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/search"
	"github.com/blastfleet/blastfleet/internal/search/fromapi"
)

// campaignSearch is the campaign's search, converted and checked by
// package fromapi as submit checks it, before any Job starts; its taxid
// list is read from the output storage.
func campaignSearch(c *v1alpha1.SearchCampaign) (search.Spec, error) {
	list := ""
	if l := c.Spec.TaxidList; l != nil {
		list = objectURL(c.Spec.Output, l.ObjectReference)
	}
	return fromapi.Spec(&c.Spec, list)
}
