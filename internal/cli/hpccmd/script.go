package hpccmd

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"unicode"

	"github.com/blastfleet/blastfleet/internal/storage/ledger"
)

// Job is what one sbatch script runs: one partition of a campaign at a
// site, sized as Slurm allocations are.
type Job struct {
	Campaign     string // the ledger's location, s3://bucket/prefix
	CampaignName string // the plan's name, for the job's name
	Site         string
	Nodes        int
	TasksPerNode int
	CPUsPerTask  int
	Partition    string // Slurm's partition (queue); "" for the default
	Time         string // Slurm's --time; "" for the partition's default
	Account      string
	Engine       string // the engine's path on the compute nodes
	Launcher     string // auto, srun or mpirun
	CacheDir     string // node-local scratch for shards; "" for $TMPDIR
	Output       string // the job's log file pattern
	Extra        []string
	// DatabaseReplicas are the engine's --database-replica locations:
	// stores holding the campaign's database build nearer this site.
	DatabaseReplicas []string
}

// siteRe keeps site names to what a label, a job name and a partition id
// can all hold.
var siteRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$`)

// slurmValueRe keeps values written into #SBATCH lines from breaking them.
var slurmValueRe = regexp.MustCompile(`^[A-Za-z0-9_.:,@+=/-]+$`)

// sbatchOptionRe is an --sbatch option: one #SBATCH word, which quoting
// does not protect (sbatch reads these lines itself, and a line break
// would end the comment and start a shell command). Slurm's node lists
// and constraints ("node[1-4]", "a&b|c") are allowed; spaces, quotes and
// control characters are not.
var sbatchOptionRe = regexp.MustCompile(`^--[A-Za-z0-9_.:,@+=/%\[\]|&!*()^-]+$`)

func (j *Job) validate() error {
	switch {
	case !siteRe.MatchString(j.Site):
		return fmt.Errorf("--site %q: want lower case letters, digits and '-' (at most 40), e.g. hpc-a", j.Site)
	case j.Nodes < 1:
		return fmt.Errorf("--nodes %d: want at least 1", j.Nodes)
	case j.TasksPerNode < 1:
		return fmt.Errorf("--ntasks-per-node %d: want at least 1", j.TasksPerNode)
	case j.CPUsPerTask < 1:
		return fmt.Errorf("--cpus-per-task %d: want at least 1", j.CPUsPerTask)
	case j.Launcher != "auto" && j.Launcher != "srun" && j.Launcher != "mpirun":
		return fmt.Errorf("--launcher %q: want auto, srun or mpirun", j.Launcher)
	}
	// The campaign's name and location come from its plan, which anyone
	// who can write the ledger can write: they go into #SBATCH lines and
	// comments, where quoting does not apply, so they are refused there
	// unless made of safe characters (ledger.ReadPlan refuses them too).
	if err := ledger.CheckName(j.CampaignName); err != nil {
		return fmt.Errorf("campaign name (the plan's name): %w", err)
	}
	if strings.TrimSpace(j.Campaign) == "" || strings.ContainsFunc(j.Campaign, unicode.IsControl) {
		return fmt.Errorf("campaign location %q: want s3://bucket/prefix or a directory, without control characters", j.Campaign)
	}
	if !slurmValueRe.MatchString(strings.ReplaceAll(j.Output, "%", "")) {
		return fmt.Errorf("job output %q: unexpected characters", j.Output)
	}
	for _, v := range []struct{ flag, value string }{{"--partition", j.Partition}, {"--time", j.Time}, {"--account", j.Account}} {
		if v.value != "" && !slurmValueRe.MatchString(v.value) {
			return fmt.Errorf("%s %q: unexpected characters", v.flag, v.value)
		}
	}
	for i, r := range j.DatabaseReplicas {
		switch {
		case strings.TrimSpace(r) == "" || strings.ContainsFunc(r, unicode.IsControl):
			return fmt.Errorf("--database-replica %q: want a directory or s3://bucket/prefix", r)
		case slices.Contains(j.DatabaseReplicas[:i], r):
			return fmt.Errorf("--database-replica %s is given twice", r)
		}
	}
	for _, e := range j.Extra {
		if !sbatchOptionRe.MatchString(e) {
			return fmt.Errorf("--sbatch %q: want one sbatch option such as --qos=high", e)
		}
	}
	return nil
}

// JobName is the Slurm job name of a campaign's jobs at a site: how
// status and cancel find them. Dots part it: neither a campaign nor a site
// name holds one, so "nt" never finds campaign "nt-x"'s jobs.
func JobName(campaign, site string) string { return "blastfleet." + campaign + "." + site }

// Script is the sbatch script. It holds no secret: credentials reach the
// engine from the environment sbatch exports (AWS_* or AWS_PROFILE).
func (j *Job) Script() (string, error) {
	if err := j.validate(); err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := scriptTmpl.Execute(&b, j); err != nil {
		return "", err
	}
	return b.String(), nil
}

// quote is a POSIX shell single-quoted string.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var scriptTmpl = template.Must(template.New("sbatch").Funcs(template.FuncMap{"q": quote, "jobName": JobName}).Parse(`#!/bin/bash
#SBATCH --job-name={{jobName .CampaignName .Site}}
#SBATCH --nodes={{.Nodes}}
#SBATCH --ntasks-per-node={{.TasksPerNode}}
#SBATCH --cpus-per-task={{.CPUsPerTask}}
{{- if .Partition}}
#SBATCH --partition={{.Partition}}{{end}}
{{- if .Time}}
#SBATCH --time={{.Time}}{{end}}
{{- if .Account}}
#SBATCH --account={{.Account}}{{end}}
#SBATCH --output={{.Output}}
#SBATCH --comment=blastfleet
{{- range .Extra}}
#SBATCH {{.}}{{end}}
#
# Site {{.Site}} works blastfleet campaign {{.CampaignName}}: one partition
# of it, leasing chunks of queries from the campaign's ledger at
# {{q .Campaign}}
# alongside every other partition (Kubernetes or HPC).
# Written by "blastfleet hpc submit"; "blastfleet hpc status" and
# "blastfleet hpc cancel" follow it.
#
# Cancelling the job, or its time limit, is a stop, not a failure: the
# engine records the chunks it held as stopped and releases them for the
# campaign's other partitions. Nothing committed is lost.
#
# Credentials come from the environment sbatch exports from the submitting
# shell (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with a
# shared credentials file) and AWS_ENDPOINT_URL; this script holds none.
{{- if .DatabaseReplicas}}
# Database replica N reads BLASTFLEET_REPLICA<N>_AWS_* (else AWS_*).{{end}}
set -euo pipefail

campaign={{q .Campaign}}
site={{q .Site}}
engine={{q .Engine}}
export BLASTFLEET_SITE="$site"
cache={{if .CacheDir}}{{q .CacheDir}}{{else}}"${TMPDIR:-/tmp}"{{end}}/blastfleet-"$SLURM_JOB_ID"
trap 'rm -rf "$cache"' EXIT

launcher={{q .Launcher}}
if [ "$launcher" = auto ]; then
  # srun starts the ranks where Slurm's PMIx plugin serves them; otherwise
  # the MPI's own mpirun, which reads the allocation from Slurm.
  # (Read whole first: grep -q ending the pipe early fails it under pipefail.)
  mpis=$(srun --mpi=list 2>&1 || true)
  if grep -qw pmix <<<"$mpis"; then launcher=srun; else launcher=mpirun; fi
fi
# Every task of the allocation searches: the engine's master, rank 0, is
# one rank more, beside the first node's tasks. It waits on its workers
# most of the time, and yields the core it shares instead of spinning.
ranks=$((SLURM_NTASKS + 1))
export OMPI_MCA_mpi_yield_when_idle=1
# Told to stop (scancel, the time limit), mpirun gives the ranks 3 s, not
# 1, to record their stops before it SIGKILLs them.
export OMPI_MCA_odls_base_sigkill_timeout=3
case "$launcher" in
  srun) launch=(srun --mpi=pmix --kill-on-bad-exit=0 --overcommit --ntasks="$ranks"
                --ntasks-per-node=$((${SLURM_NTASKS_PER_NODE:-$SLURM_NTASKS} + 1))) ;;
  mpirun) launch=(mpirun -np "$ranks" --oversubscribe) ;;
esac

echo "blastfleet: site $site, job $SLURM_JOB_ID, $ranks ranks via $launcher ($SLURM_NTASKS searching, and the master) on $SLURM_JOB_NODELIST, campaign $campaign" >&2
"${launch[@]}" "$engine" --campaign "$campaign" --site "$site" \
  --partition-id "$site-$SLURM_JOB_ID" --threads "${SLURM_CPUS_PER_TASK:-1}" --cache-dir "$cache"
{{- range .DatabaseReplicas}} \
  --database-replica {{q .}}{{end}}
`))
