package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	kubeflow "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/controllers"
)

// checkOnce says what was created twice: a partition (campaign, index)
// with more than one MPIJob, an MPIJob with more than one launcher Job, a
// campaign with more than one planning Job, or more MPIJob creates
// answered by the API server than there are partitions. (Fewer counted
// creates is no failure: the last ones before the API server's restart
// may fall between two scrapes. Fewer MPIJobs at the end is none either:
// a campaign's assembled result completes it, and the operator deletes
// its partitions still running a minute later; a partition that starts
// late may find its chunks taken by the others and be deleted unrun.)
func (b *bench) checkOnce(ctx context.Context) (mpijobs int, problems []string, err error) {
	var jobs kubeflow.MPIJobList
	if err := b.c.List(ctx, &jobs, client.InNamespace(namespace)); err != nil {
		return 0, nil, fmt.Errorf("listing MPIJobs: %w", err)
	}
	perPartition := map[string][]string{}
	for _, j := range jobs.Items {
		k := j.Labels[controllers.LabelCampaign] + " partition " + j.Labels[controllers.LabelPartition]
		perPartition[k] = append(perPartition[k], j.Name)
	}
	problems = append(problems, twice("MPIJobs of", perPartition)...)
	want := b.cfg.campaigns * b.cfg.partitions
	if created := int(b.created("mpijobs")); created > want {
		problems = append(problems, fmt.Sprintf("the API server created %d MPIJobs for %d partitions", created, want))
	}
	var batch batchv1.JobList
	if err := b.c.List(ctx, &batch, client.InNamespace(namespace)); err != nil {
		return 0, nil, fmt.Errorf("listing Jobs: %w", err)
	}
	launchers, plans := map[string][]string{}, map[string][]string{}
	for _, j := range batch.Items {
		if mj := j.Labels[kubeflow.JobNameLabel]; mj != "" {
			launchers["MPIJob "+mj] = append(launchers["MPIJob "+mj], j.Name)
		} else if c := j.Labels[controllers.LabelCampaign]; c != "" {
			plans["campaign "+c] = append(plans["campaign "+c], j.Name)
		}
	}
	problems = append(problems, twice("launcher Jobs of", launchers)...)
	problems = append(problems, twice("planning Jobs of", plans)...)
	return len(jobs.Items), problems, nil
}

func twice(what string, by map[string][]string) []string {
	var out []string
	for k, names := range by {
		if len(names) > 1 {
			sort.Strings(names)
			out = append(out, fmt.Sprintf("%s %s: %s", what, k, strings.Join(names, ", ")))
		}
	}
	sort.Strings(out)
	return out
}
