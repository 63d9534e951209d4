package v1alpha1

import (
	"errors"
	"fmt"
	"net/url"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/internal/operator/burst"
	"github.com/blastfleet/blastfleet/internal/operator/policy"
)

// Load reads a configuration file over the defaults: a field the file
// names replaces the default, the others keep it. Unknown fields, a
// wrong apiVersion or kind, and invalid values are refused naming them.
func Load(path string) (Configuration, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Configuration{}, fmt.Errorf("configuration: %w", err)
	}
	c, err := Decode(raw)
	if err != nil {
		return Configuration{}, fmt.Errorf("configuration %s: %w", path, err)
	}
	return c, nil
}

// Decode is Load's reading of a file's bytes.
func Decode(raw []byte) (Configuration, error) {
	c := Default()
	c.APIVersion, c.Kind = "", ""
	if err := yaml.UnmarshalStrict(raw, &c); err != nil {
		return Configuration{}, err
	}
	if c.APIVersion != GroupVersion || c.Kind != Kind {
		return Configuration{}, fmt.Errorf("apiVersion %q, kind %q: want %s, %s", c.APIVersion, c.Kind, GroupVersion, Kind)
	}
	return c, c.Validate()
}

// Validate refuses settings the manager cannot run with, naming each.
func (c Configuration) Validate() error {
	var errs []error
	for _, d := range []struct {
		field string
		v     float64
	}{
		{"ledgerPollInterval", c.LedgerPollInterval.Seconds()},
		{"summaryMaxAge", c.SummaryMaxAge.Seconds()},
		{"partitionWindDown", c.PartitionWindDown.Seconds()},
		{"bounds.maxConcurrentReconciles", float64(c.Bounds.MaxConcurrentReconciles)},
		{"bounds.storeRequestTimeout", c.Bounds.StoreRequestTimeout.Seconds()},
		{"bounds.reconcileTimeout", c.Bounds.ReconcileTimeout.Seconds()},
		{"bounds.assembleTimeout", c.Bounds.AssembleTimeout.Seconds()},
		{"bounds.maxObjectBytes", float64(c.Bounds.MaxObjectBytes)},
		{"clientConnection.qps", c.ClientConnection.QPS},
		{"clientConnection.burst", float64(c.ClientConnection.Burst)},
	} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive", d.field))
		}
	}
	if c.PartitionTTL.Duration < 0 {
		errs = append(errs, errors.New("partitionTTL must not be negative"))
	}
	if c.Site == "" {
		errs = append(errs, errors.New("site must not be empty"))
	}
	if c.LeaderElection.LeaderElect && c.LeaderElection.ResourceName == "" {
		errs = append(errs, errors.New("leaderElection.resourceName must not be empty with leaderElect"))
	}
	for _, fe := range [][2]string{{"stsEndpoint", c.STSEndpoint}, {"defaultStore.endpoint", c.DefaultStore.Endpoint}} {
		field, e := fe[0], fe[1]
		if e == "" {
			continue
		}
		if u, err := url.Parse(e); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			errs = append(errs, fmt.Errorf("%s %q: want http(s)://host[:port]", field, e))
		}
	}
	if err := c.BurstPolicy().Validate(); err != nil {
		errs = append(errs, fmt.Errorf("burst: %w", err))
	}
	if err := c.Policy.Policy().Validate(); err != nil {
		errs = append(errs, fmt.Errorf("policy: %w", err))
	}
	return errors.Join(errs...)
}

// BurstPolicy is Burst as the burst package takes it.
func (c Configuration) BurstPolicy() burst.Policy {
	return burst.Policy{MinInterval: c.Burst.Interval.Duration, MinWindow: c.Burst.Window.Duration, Margin: c.Burst.Margin}
}

// Policy is p as the policy package takes it.
func (p Policy) Policy() policy.Policy {
	return policy.Policy{
		Images:                  p.AllowedImages,
		PriorityClasses:         p.AllowedPriorityClasses,
		NodeSelectors:           p.AllowedNodeSelectors,
		TolerationKeys:          p.AllowedTolerationKeys,
		Endpoints:               p.AllowedEndpoints,
		AllowInternalEndpoints:  p.AllowInternalEndpoints,
		RequireCredentialsLabel: p.RequireCredentialsLabel,
		RequireCABundleLabel:    p.RequireCABundleLabel,
		AllowOperatorIdentity:   p.AllowOperatorIdentity,
		ServiceAccounts:         p.AllowedServiceAccounts,
	}
}
