package hpccmd

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// slurmJob is one of a site's jobs as squeue shows it.
type slurmJob struct {
	ID, Name, State, Elapsed, Limit, Nodes, Reason string
}

// Site is the site a job's name says it works for.
func (j slurmJob) site(campaign string) string {
	return strings.TrimPrefix(j.Name, JobName(campaign, ""))
}

// squeueFormat and parseSqueue agree on the fields, '|'-separated.
const squeueFormat = "%i|%j|%T|%M|%l|%D|%R"

// siteJobs lists the campaign's jobs in Slurm's queue (pending and
// running), at one site or all.
func siteJobs(ctx context.Context, campaign, site string) ([]slurmJob, error) {
	out, err := exec.CommandContext(ctx, "squeue", "--noheader", "--format", squeueFormat).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("squeue: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return parseSqueue(string(out), campaign, site), nil
}

func parseSqueue(out, campaign, site string) []slurmJob {
	var jobs []slurmJob
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) != 7 {
			continue
		}
		j := slurmJob{ID: f[0], Name: f[1], State: f[2], Elapsed: f[3], Limit: f[4], Nodes: f[5], Reason: f[6]}
		if !strings.HasPrefix(j.Name, JobName(campaign, "")) || (site != "" && j.Name != JobName(campaign, site)) {
			continue
		}
		jobs = append(jobs, j)
	}
	return jobs
}
