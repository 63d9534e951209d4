// Package policy is what the operator's administrator allows the authors
// of SearchCampaigns and BlastDatabases to ask for. Creating either is
// creating pods in the author's namespace and making the operator reach
// an object store with a Secret's keys, so the administrator may restrict
// the images those pods run, their priority class, node selector and
// tolerations, the object store endpoints, and which Secrets may be used
// as credentials (docs/security.md).
//
// Every check is a pure function; the controllers call them before they
// create a Job or an MPIJob, or open a store. An empty list allows
// anything, as before the policy existed; the credentials label is the
// one rule on by default.
package policy
