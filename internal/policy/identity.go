package policy

import "slices"

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
