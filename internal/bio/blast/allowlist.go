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

// CampaignOptions returns every option ParseOption accepts, sorted: the
// names of the SearchCampaign CRD's BlastOption enum.
func CampaignOptions() []string {
	withValue, flags := AllowedOptions()
	names := append(withValue, flags...)
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
