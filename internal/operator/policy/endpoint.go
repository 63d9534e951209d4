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
//
// With no list, any public endpoint is allowed but no internal one
// (internalHost) unless AllowInternalEndpoints: the operator's own pod
// would otherwise reach its cluster's services and the cloud's metadata
// service for whoever may create a campaign.
func (p Policy) Endpoint(field, endpoint string) error {
	raw := endpoint
	if raw == "" {
		raw = defaultEndpoint
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return &Violation{Reason: ReasonViolation, Field: field, Msg: fmt.Sprintf("%q has no host", endpoint)}
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if len(p.Endpoints) == 0 {
		if why := internalHost(host); why != "" && !p.AllowInternalEndpoints {
			return &Violation{Reason: ReasonViolation, Field: field, Msg: fmt.Sprintf(
				"%q is %s, which the operator's policy refuses unless it lists the endpoint (--allowed-endpoints) or allows internal endpoints (--allow-internal-endpoints)", endpoint, why)}
		}
		return nil
	}
	allowed, err := parseEndpoints(p.Endpoints)
	if err != nil {
		return err // Validate refuses such a policy at start
	}
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

// internalNames are suffixes of names that resolve inside the cluster or
// the cloud: Kubernetes Services (svc, cluster.local), mDNS and the
// clouds' internal zones (metadata.google.internal, ec2.internal).
var internalNames = []string{".localhost", ".local", ".svc", ".internal", ".intranet", ".lan", ".home.arpa"}

// internalHost says why host (lower case, no trailing dot) is internal,
// or "" for a public one. Names are judged as written, not resolved: a
// public name pointing at an internal address (DNS rebinding) is not
// caught here; restrict the operator's egress for that.
func internalHost(host string) string {
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap().WithZone("") // a prefix never contains a zoned address
		for _, r := range internalRanges {
			if r.Contains(a) {
				return fmt.Sprintf("an internal address (%s)", r)
			}
		}
		return ""
	}
	labels := strings.Split(host, ".")
	switch last := labels[len(labels)-1]; {
	case host == "localhost":
		return "the operator's own host"
	case len(labels) == 1:
		// Resolved through the pod's search domains: a Service.
		return "a name without a domain, which resolves inside the cluster"
	case strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x"):
		// 127.1, 0x7f.1: numeric forms some resolvers read as addresses.
		return "a numeric host that is not a plain IP address"
	case strings.Contains(host, ".svc."):
		return "a cluster-internal name"
	}
	for _, s := range internalNames {
		if strings.HasSuffix(host, s) {
			return "a cluster- or cloud-internal name (*" + s + ")"
		}
	}
	return ""
}
