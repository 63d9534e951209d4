package main

import (
	"flag"
	"strings"

	"github.com/blastfleet/blastfleet/internal/policy"
)

// listFlag is a comma-separated flag that may also be repeated.
type listFlag struct{ list *[]string }

func (f listFlag) String() string {
	if f.list == nil {
		return ""
	}
	return strings.Join(*f.list, ",")
}

func (f listFlag) Set(s string) error {
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			*f.list = append(*f.list, e)
		}
	}
	return nil
}

// bindPolicyFlags binds the operator's policy (docs/security.md) to fs.
func bindPolicyFlags(fs *flag.FlagSet, p *policy.Policy) {
	fs.Var(listFlag{&p.Images}, "allowed-images", "images partitions and sharding pods may run, comma-separated: exact references or prefixes ending in * (the --worker-image is always allowed; empty: any)")
	fs.Var(listFlag{&p.PriorityClasses}, "allowed-priority-classes", "priority classes campaigns may request, comma-separated (empty: any)")
	fs.Var(listFlag{&p.NodeSelectors}, "allowed-node-selectors", "node selector labels campaigns may use, comma-separated: key (any value) or key=value (empty: any)")
	fs.Var(listFlag{&p.TolerationKeys}, "allowed-toleration-keys", "taint keys campaigns' tolerations may name, comma-separated (empty: any)")
	fs.Var(listFlag{&p.Endpoints}, "allowed-endpoints", "object store endpoints campaigns and databases may name, comma-separated: host names, *.domain, IP addresses or CIDRs; internal addresses only by an entry inside their range (empty: any)")
	fs.BoolVar(&p.AllowInternalEndpoints, "allow-internal-endpoints", false, "with no --allowed-endpoints, allow internal endpoints too (loopback, private and link-local addresses such as the metadata service, names such as localhost, *.svc, *.cluster.local, *.internal or without a domain); off: only public ones")
	fs.BoolVar(&p.RequireCredentialsLabel, "require-credentials-label", true, "use a credentials Secret only if it carries the label blastfleet.io/credentials=true")
	fs.BoolVar(&p.RequireCABundleLabel, "require-ca-bundle-label", true, "use a ConfigMap as a store's caBundle (mounted into pods) only if it carries the label blastfleet.io/ca-bundle=true")
	fs.BoolVar(&p.AllowOperatorIdentity, "allow-operator-identity", false, "reach stores that name no credentials Secret (and are not anonymous) with the operator's own identity (its service account's IRSA role, pod identity, instance role); off: such campaigns and databases wait with PolicyViolation")
	fs.Var(listFlag{&p.ServiceAccounts}, "allowed-service-accounts", "service accounts campaigns' and databases' pods may run as (spec.partitions.serviceAccountName, BlastDatabase spec.serviceAccountName), comma-separated; the namespace's default is always allowed (empty: any)")
}
