package policy

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// defaultEndpoint is where an ObjectStorage without an endpoint goes.
const defaultEndpoint = "https://s3.amazonaws.com"

// internalRanges are the addresses an endpoint must not reach unless the
// administrator allows them by an entry inside the range: the operator
// itself connects to campaigns' endpoints, and these are its own host,
// its cluster's network and the cloud's metadata service.
var internalRanges = mustPrefixes(
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
	"172.16.0.0/12", "192.168.0.0/16", "224.0.0.0/4", "240.0.0.0/4",
	"::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8",
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// endpoints is a parsed Endpoints list.
type endpoints struct {
	names    []string // exact host names, lower case
	suffixes []string // ".domain" of "*.domain"
	prefixes []netip.Prefix
}

func parseEndpoints(entries []string) (endpoints, error) {
	var e endpoints
	for _, s := range entries {
		s = strings.ToLower(strings.TrimSpace(s))
		if p, err := netip.ParsePrefix(s); err == nil {
			e.prefixes = append(e.prefixes, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(s); err == nil {
			e.prefixes = append(e.prefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		name, wild := strings.CutPrefix(s, "*.")
		if name == "" || strings.ContainsAny(name, "*/:[] ") {
			return e, fmt.Errorf("policy: endpoints: entry %q is not a host name, *.domain, an IP address or a CIDR", s)
		}
		if wild {
			e.suffixes = append(e.suffixes, "."+name)
		} else {
			e.names = append(e.names, name)
		}
	}
	return e, nil
}

// Endpoint checks an object store endpoint ("" is AWS S3). A host name is
// allowed when it is listed or under a listed *.domain, as written: names
// are the administrator's to trust. An IP address is allowed when a
// listed CIDR holds it; an internal one (loopback, private, link-local,
// ...) only by an entry inside its own range, so 0.0.0.0/0 allows every
// public address and none of the cluster's or the cloud's metadata
// service (169.254.169.254).
func (p Policy) Endpoint(field, endpoint string) error {
	if len(p.Endpoints) == 0 {
		return nil
	}
	allowed, err := parseEndpoints(p.Endpoints)
	if err != nil {
		return err // Validate refuses such a policy at start
	}
	raw := endpoint
	if raw == "" {
		raw = defaultEndpoint
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return &Violation{Reason: ReasonViolation, Field: field, Msg: fmt.Sprintf("%q has no host", endpoint)}
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if a, err := netip.ParseAddr(host); err == nil {
		return allowed.address(field, endpoint, a.Unmap(), p.Endpoints)
	}
	for _, n := range allowed.names {
		if host == n {
			return nil
		}
	}
	for _, s := range allowed.suffixes {
		if strings.HasSuffix(host, s) {
			return nil
		}
	}
	return notAllowed(field, endpoint, p.Endpoints)
}

func (e endpoints) address(field, endpoint string, a netip.Addr, list []string) error {
	internal, isInternal := netip.Prefix{}, false
	for _, r := range internalRanges {
		if r.Contains(a) {
			internal, isInternal = r, true
			break
		}
	}
	for _, p := range e.prefixes {
		if !p.Contains(a) {
			continue
		}
		if !isInternal || internal.Bits() <= p.Bits() && internal.Contains(p.Addr()) {
			return nil
		}
	}
	v := notAllowed(field, endpoint, list)
	if isInternal {
		v.Msg += fmt.Sprintf("; %s is an internal address (%s), allowed only by an entry inside that range", a, internal)
	}
	return v
}
