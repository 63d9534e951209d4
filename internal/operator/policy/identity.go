package policy

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// OperatorIdentity checks that a store naming no credentials Secret may
// be reached with the operator's own identity (its service account's
// cloud role). Off unless the administrator allows it: the operator
// would otherwise lend its role to anyone who may create a campaign,
// reaching buckets they themselves cannot.
func (p Policy) OperatorIdentity(field string) error {
	if p.AllowOperatorIdentity {
		return nil
	}
	return &Violation{Reason: ReasonViolation, Field: field,
		Msg: "unset, which means the pods' own identity, and the operator reads this store too: its policy does not let it use its own identity (--allow-operator-identity, docs/security.md); name a credentials Secret"}
}

// ServiceAccount checks the service account a campaign's pods run as:
// whoever may create a campaign would otherwise run pods as any service
// account of the namespace, and with its cloud role.
func (p Policy) ServiceAccount(field, name string) error {
	if len(p.ServiceAccounts) == 0 || name == "" || slices.Contains(p.ServiceAccounts, name) {
		return nil
	}
	return notAllowed(field, name, p.ServiceAccounts)
}

// IdentityEndpoint checks a store reached with an identity rather than a
// Secret's keys (the pods' or the operator's): requests to it carry
// credentials the identity's STS issued, so it must be AWS S3 ("" or a
// name under amazonaws.com) or an endpoint the administrator listed in
// Endpoints. An empty list, which allows any endpoint for keys, does not
// allow this.
func (p Policy) IdentityEndpoint(field, endpoint string) error {
	if endpoint == "" {
		return nil
	}
	if u, err := url.Parse(endpoint); err == nil {
		host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		for _, aws := range []string{"amazonaws.com", "amazonaws.com.cn"} {
			if host == aws || strings.HasSuffix(host, "."+aws) {
				return nil
			}
		}
	}
	if len(p.Endpoints) > 0 && p.Endpoint(field, endpoint) == nil {
		return nil
	}
	return &Violation{Reason: ReasonViolation, Field: field,
		Msg: fmt.Sprintf("%q is reached with an identity (no credentialsSecretRef), so its requests carry the identity's credentials: the operator's policy allows that only for AWS S3 or an endpoint it lists (--allowed-endpoints, docs/security.md); name a credentials Secret", endpoint)}
}
