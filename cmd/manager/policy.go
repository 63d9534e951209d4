package main

import (
	"flag"
	"strings"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
)

// listFlag is a comma-separated flag that may also be repeated. Given,
// it replaces the list the configuration file had.
type listFlag struct {
	list *[]string
	set  bool
}

func (f *listFlag) String() string {
	if f.list == nil {
		return ""
	}
	return strings.Join(*f.list, ",")
}

func (f *listFlag) Set(s string) error {
	if !f.set {
		*f.list, f.set = nil, true
	}
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			*f.list = append(*f.list, e)
		}
	}
	return nil
}

// bindPolicyFlags binds the operator's policy (docs/security.md) to fs,
// each flag's default being p's value.
func bindPolicyFlags(fs *flag.FlagSet, p *config.Policy) {
	fs.Var(&listFlag{list: &p.AllowedImages}, "allowed-images", "images partitions and sharding pods may run, comma-separated: exact references or prefixes ending in * (the --worker-image is always allowed; empty: any)")
	fs.Var(&listFlag{list: &p.AllowedPriorityClasses}, "allowed-priority-classes", "priority classes campaigns may request, comma-separated (empty: any)")
	fs.Var(&listFlag{list: &p.AllowedNodeSelectors}, "allowed-node-selectors", "node selector labels campaigns may use, comma-separated: key (any value) or key=value (empty: any)")
	fs.Var(&listFlag{list: &p.AllowedTolerationKeys}, "allowed-toleration-keys", "taint keys campaigns' tolerations may name, comma-separated (empty: any)")
	fs.Var(&listFlag{list: &p.AllowedEndpoints}, "allowed-endpoints", "object store endpoints campaigns and databases may name, comma-separated: host names, *.domain, IP addresses or CIDRs; internal addresses only by an entry inside their range (empty: any)")
	fs.BoolVar(&p.AllowInternalEndpoints, "allow-internal-endpoints", p.AllowInternalEndpoints, "with no --allowed-endpoints, allow internal endpoints too (loopback, private and link-local addresses such as the metadata service, names such as localhost, *.svc, *.cluster.local, *.internal or without a domain); off: only public ones")
	fs.BoolVar(&p.RequireCredentialsLabel, "require-credentials-label", p.RequireCredentialsLabel, "use a credentials Secret only if it carries the label blastfleet.io/credentials=true")
	fs.BoolVar(&p.RequireCABundleLabel, "require-ca-bundle-label", p.RequireCABundleLabel, "use a ConfigMap as a store's caBundle (mounted into pods) only if it carries the label blastfleet.io/ca-bundle=true")
	fs.BoolVar(&p.AllowOperatorIdentity, "allow-operator-identity", p.AllowOperatorIdentity, "reach stores that name no credentials Secret (and are not anonymous) with the operator's own identity (its service account's IRSA role, pod identity, instance role); off: such campaigns and databases wait with PolicyViolation")
	fs.Var(&listFlag{list: &p.AllowedServiceAccounts}, "allowed-service-accounts", "service accounts campaigns' and databases' pods may run as (spec.partitions.serviceAccountName, BlastDatabase spec.serviceAccountName), comma-separated; the namespace's default is always allowed (empty: any)")
}
