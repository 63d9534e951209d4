package operator

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers"
)

// TestNamespaceOwnedByAnotherRelease: a cluster-wide operator (its
// default --namespace-selector) leaves alone the campaigns and databases
// of a namespace labelled for a release of its own, so two operators
// never reconcile one campaign and the laxer policy cannot win (issue 30,
// finding 5). Once the label goes, it takes the namespace back at once.
func TestNamespaceOwnedByAnotherRelease(t *testing.T) {
	t.Parallel() // its own API server, MinIO and operator
	h := newHarness(t)
	h.stopOperator()
	h.nsSelector = controllers.DefaultNamespaceSelector
	h.startOperator()
	ctx := context.Background()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{controllers.OperatorNamespaceLabel: "team-a"}}}
	h.create(ns)
	theirs := h.campaign("theirs", "no-such-db", 1)
	theirs.Namespace = ns.Name
	h.create(theirs)
	mine := h.campaign("mine", "no-such-db", 1)
	h.create(mine)

	// The operator reconciles its own namespace's campaign...
	h.eventually("campaign mine reconciled", 30*time.Second, func() (bool, string) {
		c := h.get("mine")
		return c.Status.ObservedGeneration > 0, "no status yet"
	})
	// ...and, a few polls later, has still not written team-a's.
	time.Sleep(3 * time.Second)
	var got v1alpha1.SearchCampaign
	if err := h.c.Get(ctx, client.ObjectKeyFromObject(theirs), &got); err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != 0 || got.Status.Phase != "" {
		t.Fatalf("the cluster-wide operator reconciled a campaign of a namespace labelled %s: status %+v", controllers.OperatorNamespaceLabel, got.Status)
	}

	// The namespace handed back: reconciled without any change to it.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := h.c.Get(ctx, client.ObjectKeyFromObject(ns), ns); err != nil {
			return err
		}
		delete(ns.Labels, controllers.OperatorNamespaceLabel)
		return h.c.Update(ctx, ns)
	}); err != nil {
		t.Fatal(err)
	}
	h.eventually("campaign theirs reconciled once its namespace is unlabelled", 30*time.Second, func() (bool, string) {
		if err := h.c.Get(ctx, client.ObjectKeyFromObject(theirs), &got); err != nil {
			return false, err.Error()
		}
		return got.Status.ObservedGeneration > 0, "no status yet"
	})
}
