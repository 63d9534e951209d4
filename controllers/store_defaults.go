package controllers

import "github.com/blastfleet/blastfleet/api/v1alpha1"

// The administrator's default store (--default-store-endpoint, the
// configuration's defaultStore) is filled into the copies of campaigns
// and databases a reconcile reads, never into what is stored: every
// use (the operator's reads, the pods' variables, the policy) then sees
// one endpoint. Status writes leave the spec as stored.

// defaultEndpoint is st with the default endpoint when it names none
// and is not anonymous: an anonymous store naming none is a public AWS
// bucket (NCBI's), whatever the default.
func (o StoreOpener) defaultEndpoint(st *v1alpha1.ObjectStorage) {
	if st != nil && st.Endpoint == "" && !st.Anonymous {
		st.Endpoint = o.DefaultEndpoint
	}
}

// defaultCampaign fills the default endpoint into c's stores.
func (o StoreOpener) defaultCampaign(c *v1alpha1.SearchCampaign) {
	o.defaultEndpoint(&c.Spec.Output)
	o.defaultEndpoint(c.Spec.Queries.Storage)
}

// defaultDatabase fills the default endpoint into db's stores.
func (o StoreOpener) defaultDatabase(db *v1alpha1.BlastDatabase) {
	o.defaultEndpoint(&db.Spec.Storage)
	for i := range db.Spec.Replicas {
		o.defaultEndpoint(&db.Spec.Replicas[i].Storage)
	}
}

// isDefault reports whether endpoint is the administrator's default, which
// the policy's lists do not restrict.
func (o StoreOpener) isDefault(endpoint string) bool {
	return endpoint != "" && endpoint == o.DefaultEndpoint
}
