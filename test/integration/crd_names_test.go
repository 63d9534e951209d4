package integration

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/blastfleet/blastfleet/test/support/kubetest"
)

// TestShortNames resolves the CRDs' short names the way kubectl does: each
// must name our resource, unambiguously (sc, for one, is StorageClass's).
func TestShortNames(t *testing.T) {
	env := kubetest.Start(t)
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	expander := restmapper.NewShortcutExpander(
		restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), dc,
		func(w string) { warnings = append(warnings, w) })
	for short, want := range map[string]string{"bdb": "blastdatabases", "bsc": "searchcampaigns"} {
		warnings = nil
		gvr, err := expander.ResourceFor(schema.GroupVersionResource{Resource: short})
		if err != nil {
			t.Errorf("kubectl get %s: %v", short, err)
			continue
		}
		if gvr.Group != "blastfleet.io" || gvr.Resource != want {
			t.Errorf("kubectl get %s lists %s, want %s.blastfleet.io", short, gvr.GroupResource(), want)
		}
		if len(warnings) > 0 {
			t.Errorf("kubectl get %s: %q", short, warnings)
		}
	}

	// kubectl get blastfleet lists both kinds.
	resources, err := dc.ServerResourcesForGroupVersion("blastfleet.io/v1alpha1")
	if err != nil {
		t.Fatal(err)
	}
	var inCategory []string
	for _, r := range resources.APIResources {
		if slices.Contains(r.Categories, "blastfleet") {
			inCategory = append(inCategory, r.Name)
		}
	}
	slices.Sort(inCategory)
	if want := []string{"blastdatabases", "searchcampaigns"}; !slices.Equal(inCategory, want) {
		t.Errorf("category blastfleet holds %v, want %v", inCategory, want)
	}
}
