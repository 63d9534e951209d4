package controllers

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWindDown(t *testing.T) {
	const grace = time.Minute
	completed := func(ago time.Duration) *metav1.Time { return &metav1.Time{Time: t0.Add(-ago)} }
	for _, tc := range []struct {
		name       string
		parts      []partition
		completed  *metav1.Time
		wantRemove []string
		wantWait   time.Duration
	}{
		{name: "queued go at once, running get their grace", completed: completed(15 * time.Second),
			parts:      parts(aPartition(0, 0).queued(), aPartition(1, 0)),
			wantRemove: []string{"camp-p0-r0"}, wantWait: 45 * time.Second},
		{name: "grace over", completed: completed(grace),
			parts:      parts(aPartition(0, 0), aPartition(1, 0)),
			wantRemove: []string{"camp-p0-r0", "camp-p1-r0"}},
		{name: "ended ones are left as records", completed: completed(time.Hour),
			parts: parts(aPartition(0, 0).failed(t0), aPartition(1, 0).succeeded(t0))},
		{name: "no completion time", parts: parts(aPartition(0, 0)), wantRemove: []string{"camp-p0-r0"}},
		{name: "nothing left", completed: completed(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			remove, wait := windDown(tc.parts, tc.completed, grace, t0)
			var names []string
			for _, p := range remove {
				names = append(names, p.obj.GetName())
			}
			if !slices.Equal(names, tc.wantRemove) || wait != tc.wantWait {
				t.Errorf("remove %q, wait %s; want %q, %s", names, wait, tc.wantRemove, tc.wantWait)
			}
		})
	}
}
