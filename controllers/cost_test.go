package controllers

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/operator/kubescheme"
)

// A planned campaign's cost is estimated from the latest Complete one
// like it (same database, program and task) at its core-seconds per
// query letter; unlike campaigns and unfinished ones are not gone by.
func TestEstimateCost(t *testing.T) {
	done := func(name, db, task string, ago time.Duration, coreSeconds, letters int64) client.Object {
		c := aCampaign().build()
		c.Name, c.UID = name, types.UID("uid-"+name)
		c.Spec.DatabaseRef.Name, c.Spec.Program = db, "blastn"
		if task != "" {
			c.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "task", Value: task}}
		}
		at := metav1.NewTime(time.Now().Add(-ago))
		c.Status = v1alpha1.SearchCampaignStatus{Phase: v1alpha1.CampaignComplete, CompletionTime: &at,
			CoreSeconds: ptr.To(coreSeconds), QueryLetters: letters}
		return c
	}
	running := done("running", "nt", "megablast", 0, 1, 1).(*v1alpha1.SearchCampaign)
	running.Status.Phase = v1alpha1.CampaignRunning
	for _, tc := range []struct {
		name   string
		others []client.Object
		want   *int64
	}{
		{"the latest like it", []client.Object{
			done("old", "nt", "megablast", 2*time.Hour, 900, 1000), // 0.9 per letter
			done("new", "nt", "megablast", time.Hour, 500, 1000),   // 0.5 per letter: the latest
		}, ptr.To[int64](2000)},
		{"another task", []client.Object{done("dc", "nt", "dc-megablast", time.Hour, 500, 1000)}, nil},
		{"another database", []client.Object{done("other", "nr", "megablast", time.Hour, 500, 1000)}, nil},
		{"not finished", []client.Object{running}, nil},
		{"none", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := aCampaign().build()
			c.UID = "uid-new-one"
			c.Spec.DatabaseRef.Name, c.Spec.Program = "nt", "blastn"
			c.Spec.BlastOptions = []v1alpha1.BlastOption{{Name: "task", Value: "megablast"}}
			cl := fake.NewClientBuilder().WithScheme(kubescheme.New()).WithObjects(append(tc.others, c)...).Build()
			run := newCampaignRun(&CampaignReconciler{Client: cl, Scheme: cl.Scheme()}, c)
			run.estimateCost(context.Background(), 4000)
			got := c.Status.EstimatedCoreSeconds
			if c.Status.QueryLetters != 4000 || (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Errorf("queryLetters %d, estimate %v, want %v", c.Status.QueryLetters, ptr.Deref(got, -1), ptr.Deref(tc.want, -1))
			}
		})
	}
}
