package report

import (
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/runrecord"
)

// A run's name on the timeline says its site, once.
func TestRunNameSite(t *testing.T) {
	for _, tc := range []struct {
		r    runrecord.RunRecord
		want string
	}{
		{runrecord.RunRecord{Holder: "nt-p0-r0-ab12", Campaign: "nt", Partition: "nt-p0-r0", Site: "cloud"}, "cloud: p0-r0-ab12"},
		{runrecord.RunRecord{Holder: "hpc-a-4411-cd34", Partition: "hpc-a-4411", Site: "hpc-a"}, "hpc-a-4411-cd34"},
		{runrecord.RunRecord{Holder: "nt-p1-r0-ef56", Campaign: "nt", Partition: "nt-p1-r0"}, "p1-r0-ef56"},
	} {
		if got := runName(&tc.r); got != tc.want {
			t.Errorf("runName(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}
