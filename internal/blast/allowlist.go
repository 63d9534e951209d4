package blast

import "sort"

// AllowedOptions returns the options ParseOption accepts, sorted: those
// that take a value and the flags, which take none. The SearchCampaign
// CRD lists the same names in its BlastOption enum and the flags in its
// CEL rules; test/integration checks the two agree.
func AllowedOptions() (withValue, flags []string) {
	for name, kind := range allowed {
		if kind == flag {
			flags = append(flags, name)
		} else {
			withValue = append(withValue, name)
		}
	}
	sort.Strings(withValue)
	sort.Strings(flags)
	return withValue, flags
}

// engineOnly are options a campaign does not take: its BLAST threads are
// its slots, each slot one single-threaded BLAST rank. Measured on
// plast-example (blastp, 4 shards, in-process, 2 rounds): 2 workers of one
// thread took 24.3 and 22.8 s, 1 worker of -num_threads 2 took 26.1 and
// 28.8 s, for the same output (docs/crds.md).
var engineOnly = map[string]bool{"num_threads": true}

// CampaignOptions returns the options a SearchCampaign may set, sorted:
// AllowedOptions without those the engine alone takes (num_threads).
func CampaignOptions() []string {
	withValue, flags := AllowedOptions()
	var names []string
	for _, n := range append(withValue, flags...) {
		if !engineOnly[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// RefusedOptions returns the options ParseOption refuses with an
// explanation, sorted.
func RefusedOptions() []string {
	names := make([]string, 0, len(refused))
	for name := range refused {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// OutfmtColumns returns the tabular column names ParseFormat accepts
// besides the keyword std, sorted. The SearchCampaign CRD's outfmt
// pattern lists the same names.
func OutfmtColumns() []string {
	names := make([]string, 0, len(knownColumns))
	for name := range knownColumns {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
