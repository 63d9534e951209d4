package controllers

import (
	"context"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/executor/argo"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// componentPipeline labels a database's build Workflow.
const componentPipeline = "pipeline"

// PipelineName is a database's build Workflow.
func PipelineName(db string) string { return truncName(db, "-build") }

// databaseWorkflow is the database's build as an Argo Workflow: a verify
// step reads and validates the whole source and prints its SHA-256; then
// one step per shard (fanned out, at most spec.parallelism at once) runs
// makeblastdb for its shard, and a last step writes the manifest, both
// requiring the verified checksum, so every shard is cut from the same
// bytes. The commands are the Job path's (db shard --shard-index, then
// --finish), so both build the same shards. Argo retries a step whose
// pod failed; a step that keeps failing fails the Workflow and the
// database.
func databaseWorkflow(db *v1alpha1.BlastDatabase, src, loc string, shards int32, image string, ttl int32, sts string) (*unstructured.Unstructured, error) {
	base := shardArgs(db, src, loc, shards)
	// Steps' outputs resolve only in the steps template: each step gets
	// the verified sum as an argument.
	const sum = "{{steps.verify.outputs.result}}"
	template := func(name string, args []string) argo.Template {
		job := databaseJob(db, name, componentPipeline, image, args)
		c := job.Spec.Template.Spec.Containers[0]
		c.Name, c.Env = "main", withSTS(c.Env, sts)
		return argo.Template{Name: name, Container: &c, RetryStrategy: map[string]any{
			"limit": int64(3), "retryPolicy": "Always", "backoff": map[string]any{"duration": "5s", "factor": int64(2)}}}
	}
	verify := template("verify", append(append([]string(nil), base...), "--verify"))
	build := template("shard", append(append([]string(nil), base...), "--shard-index", "{{inputs.parameters.index}}", "--source-sha256", "{{inputs.parameters.sha256}}"))
	build.Inputs = map[string]any{"parameters": []any{map[string]any{"name": "index"}, map[string]any{"name": "sha256"}}}
	finish := template("manifest", append(append([]string(nil), base...), "--finish", "--source-sha256", "{{inputs.parameters.sha256}}"))
	finish.Inputs = map[string]any{"parameters": []any{map[string]any{"name": "sha256"}}}
	param := func(name, value string) map[string]any { return map[string]any{"name": name, "value": value} }

	parallelism := shards
	if p := db.Spec.Parallelism; p != nil {
		parallelism = min(*p, shards)
	}
	spec := argo.WorkflowSpec{
		Entrypoint:  "build",
		Parallelism: int64(parallelism),
		PodGC:       map[string]string{"strategy": "OnPodSuccess"},
		TTLStrategy: map[string]int32{"secondsAfterCompletion": ttl},
		Templates: []argo.Template{
			{Name: "build", Steps: [][]argo.Step{
				{{Name: "verify", Template: "verify"}},
				{{Name: "shard", Template: "shard", WithSequence: map[string]string{"count": strconv.Itoa(int(shards))},
					Arguments: map[string]any{"parameters": []any{param("index", "{{item}}"), param("sha256", sum)}}}},
				{{Name: "manifest", Template: "manifest", Arguments: map[string]any{"parameters": []any{param("sha256", sum)}}}},
			}},
			verify, build, finish,
		},
	}
	// The pipeline's pods run as the database's Jobs' do, with no API
	// token; Argo's own containers get the executor's.
	spec.RunPods(databaseJob(db, "", componentPipeline, image, nil).Spec.Template)
	return argo.NewWorkflow(PipelineName(db.Name), db.Namespace, databaseLabels(db, componentPipeline), &spec)
}

func databaseLabels(db *v1alpha1.BlastDatabase, component string) map[string]string {
	return map[string]string{LabelDatabase: db.Name, LabelComponent: component, LabelManagedBy: managedByValue}
}

// pipelineState reads a build Workflow: its phase, its message, and how
// many shard steps have succeeded.
func pipelineState(wf *unstructured.Unstructured) (phase, message string, built int32) {
	phase, _, _ = unstructured.NestedString(wf.Object, "status", "phase")
	message, _, _ = unstructured.NestedString(wf.Object, "status", "message")
	nodes, _, _ := unstructured.NestedMap(wf.Object, "status", "nodes")
	var failed string
	for _, n := range nodes {
		m, ok := n.(map[string]any)
		if !ok || m["type"] != "Pod" {
			continue
		}
		if m["templateName"] == "shard" && m["phase"] == argowf.PhaseSucceeded {
			built++
		}
		if p := m["phase"]; (p == argowf.PhaseFailed || p == argowf.PhaseError) && failed == "" {
			name, _ := m["displayName"].(string)
			msg, _ := m["message"].(string)
			failed = fmt.Sprintf("step %s: %s", name, msg)
		}
	}
	if (phase == argowf.PhaseFailed || phase == argowf.PhaseError) && failed != "" {
		message += " (" + failed + ")"
	}
	return phase, message, built
}

// pipelineBuilder runs the build as a Workflow (databaseWorkflow) and
// follows it; on a cluster without Argo, a database that asks for it
// waits, told why.
type pipelineBuilder struct{ installed bool }

func (p pipelineBuilder) build(ctx context.Context, run *databaseRun, src, loc string) (time.Duration, error) {
	shards, wait, ok := run.fastaShards(ctx, src)
	if !ok {
		return wait, nil
	}
	if !p.installed {
		run.set(v1alpha1.DatabasePending, "ArgoUnavailable", "spec.builder is argo but Argo Workflows is not installed: the API server had no workflows.argoproj.io when the operator started (install Argo Workflows, then restart the operator; docs/operator.md)")
		return run.r.PollInterval, nil
	}
	db := run.db
	want, err := databaseWorkflow(db, src, loc, shards, run.r.image(db), run.r.TTLSecondsAfterFinished, run.r.Stores.STSEndpoint)
	if err != nil {
		return 0, err
	}
	wf := argo.Executor{}.NewObject().(*unstructured.Unstructured)
	err = run.r.Get(ctx, client.ObjectKeyFromObject(want), wf)
	switch {
	case apierrors.IsNotFound(err):
		if err := (argo.Executor{}).Prepare(ctx, run.r.Client, db.Namespace, db.Spec.ServiceAccountName); err != nil {
			return 0, err
		}
		if err := controllerutil.SetControllerReference(db, want, run.r.Scheme); err != nil {
			return 0, err
		}
		if err := run.r.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
			return 0, fmt.Errorf("creating Workflow %s: %w", want.GetName(), err)
		}
		run.events = append(run.events, event{reason: "WorkflowCreated", action: "Create", note: "Workflow " + want.GetName() + " created"})
		wf = want
	case err != nil:
		return 0, fmt.Errorf("reading Workflow %s: %w", want.GetName(), err)
	}
	phase, msg, built := pipelineState(wf)
	db.Status.ShardsBuilt = built
	switch phase {
	case argowf.PhaseFailed, argowf.PhaseError:
		run.set(v1alpha1.DatabaseFailed, "PipelineFailed", fmt.Sprintf("Workflow %s %s: %s", wf.GetName(), phase, msg))
		return 0, nil
	case argowf.PhaseSucceeded:
		return run.ready(ctx, run.store, loc)
	}
	run.set(v1alpha1.DatabaseSharding, "Sharding", fmt.Sprintf("%d of %d shards built (Workflow %s)", built, shards, wf.GetName()))
	return run.r.PollInterval, nil
}
