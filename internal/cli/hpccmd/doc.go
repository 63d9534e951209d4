// Package hpccmd is "blastfleet hpc": an HPC site joins a campaign with
// Slurm jobs that run the engine against the campaign's ledger, as the
// cluster's partitions do. It writes and submits the sbatch script, and
// follows and cancels the site's jobs.
package hpccmd
