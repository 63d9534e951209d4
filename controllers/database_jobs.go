package controllers

import (
	"context"
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/controllers/pods"
)

// jobsBuilder builds a FASTA's shards with an Indexed Job (shardingJob),
// then writes the manifest with another (manifestJob).
type jobsBuilder struct{}

func (jobsBuilder) build(ctx context.Context, run *databaseRun, src, loc string) (time.Duration, error) {
	shards, wait, ok := run.fastaShards(ctx, src)
	if !ok {
		return wait, nil
	}
	db := run.db
	shardJob, err := run.ensureJob(ctx, shardingJob(db, src, loc, shards, run.r.image(db)))
	if err != nil {
		return 0, err
	}
	db.Status.ShardsBuilt = shardJob.Status.Succeeded
	switch {
	case jobCondition(shardJob, batchv1.JobFailed):
		run.set(v1alpha1.DatabaseFailed, "ShardingFailed", "building shards failed: "+run.podFailure(ctx, shardJob))
		return 0, nil
	case !jobCondition(shardJob, batchv1.JobComplete):
		run.set(v1alpha1.DatabaseSharding, "Sharding", fmt.Sprintf("%d of %d shards built", shardJob.Status.Succeeded, shards))
		return run.r.PollInterval, nil
	}
	finish, err := run.ensureJob(ctx, manifestJob(db, src, loc, shards, run.r.image(db)))
	if err != nil {
		return 0, err
	}
	switch {
	case jobCondition(finish, batchv1.JobFailed):
		run.set(v1alpha1.DatabaseFailed, "ManifestFailed", "writing the manifest failed: "+run.podFailure(ctx, finish))
		return 0, nil
	case !jobCondition(finish, batchv1.JobComplete):
		run.set(v1alpha1.DatabaseSharding, "WritingManifest", fmt.Sprintf("all %d shards built; writing the manifest", shards))
		return run.r.PollInterval, nil
	}
	return run.ready(ctx, run.store, loc)
}

// blastdbBuilder shards a prebuilt BLAST database: one Job copies its
// volumes into shards and writes the manifest.
type blastdbBuilder struct{}

func (blastdbBuilder) build(ctx context.Context, run *databaseRun, src, loc string) (time.Duration, error) {
	db := run.db
	found, err := run.blastDBExists(ctx, src)
	if err != nil {
		run.set(v1alpha1.DatabasePending, storageReason(err), fmt.Sprintf("spec.source: %s: %v", src, err))
		return run.r.PollInterval, nil
	}
	if !found {
		run.set(v1alpha1.DatabaseFailed, "SourceNotFound", fmt.Sprintf("spec.source: no BLAST database at %s (no %s.* objects: volumes NAME.NN.tar.gz or NAME.n*/p* files)", src, db.Spec.Source.Key))
		return 0, nil
	}
	shards := *db.Spec.Shards.Count
	db.Status.Shards = shards
	job, err := run.ensureJob(ctx, blastdbJob(db, src, loc, shards, run.r.image(db)))
	if err != nil {
		return 0, err
	}
	switch {
	case jobCondition(job, batchv1.JobFailed):
		run.set(v1alpha1.DatabaseFailed, "ShardingFailed", "sharding the BLAST database failed: "+run.podFailure(ctx, job))
		return 0, nil
	case !jobCondition(job, batchv1.JobComplete):
		run.set(v1alpha1.DatabaseSharding, "Sharding", fmt.Sprintf("copying the volumes of %s into %d shards", src, shards))
		return run.r.PollInterval, nil
	}
	db.Status.ShardsBuilt = shards
	return run.ready(ctx, run.store, loc)
}

// shardingJob builds shard i in completion index i. Every index reads and
// validates the whole source the same way, so all agree on the split; an
// index already built is a no-op, so retries are cheap.
func shardingJob(db *v1alpha1.BlastDatabase, src, loc string, shards int32, image string) *batchv1.Job {
	args := shardArgs(db, src, loc, shards)
	args = append(args, "--shard-index", "$(JOB_COMPLETION_INDEX)")
	job := databaseJob(db, ShardJobName(db.Name), componentShards, image, args)
	job.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	job.Spec.Completions = ptr.To(shards)
	job.Spec.Parallelism = ptr.To(shards)
	if db.Spec.Parallelism != nil {
		job.Spec.Parallelism = ptr.To(min(*db.Spec.Parallelism, shards))
	}
	// Each index gets its own retries, so one bad node does not fail all.
	job.Spec.BackoffLimit = nil
	job.Spec.BackoffLimitPerIndex = ptr.To[int32](3)
	// A replacement pod starts only once the old one has failed, so two
	// pods never build the same shard's files at once.
	job.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
	return job
}

// blastdbJob shards a prebuilt BLAST database in one pod: it copies
// volumes, builds nothing, so there is no work to spread over an Indexed
// Job, and writes the manifest itself.
func blastdbJob(db *v1alpha1.BlastDatabase, src, loc string, shards int32, image string) *batchv1.Job {
	return databaseJob(db, ShardJobName(db.Name), componentShards, image, []string{"db", "shard",
		"--blastdb", src,
		"--type", string(db.Spec.Type),
		"--shards", strconv.Itoa(int(shards)),
		"--name", db.Name,
		"--output", loc,
		"--work-dir", scratchDir,
	})
}

// manifestJob writes manifest.json once every shard is built.
func manifestJob(db *v1alpha1.BlastDatabase, src, loc string, shards int32, image string) *batchv1.Job {
	return databaseJob(db, ManifestJobName(db.Name), componentFinish, image, append(shardArgs(db, src, loc, shards), "--finish"))
}

func shardArgs(db *v1alpha1.BlastDatabase, src, loc string, shards int32) []string {
	return []string{"db", "shard",
		"--input", src,
		"--type", string(db.Spec.Type),
		"--shards", strconv.Itoa(int(shards)),
		"--name", db.Name,
		"--output", loc,
		"--work-dir", scratchDir,
	}
}

func databaseJob(db *v1alpha1.BlastDatabase, name, component, image string, args []string) *batchv1.Job {
	return databaseJobWith(db, name, component, image, args, singleStorage(db.Spec.Storage))
}

// databaseJobWith is a database's Job reaching the stores st.
func databaseJobWith(db *v1alpha1.BlastDatabase, name, component, image string, args []string, st podStorage) *batchv1.Job {
	labels := databaseLabels(db, component)
	vol, mount := scratchVolume(nil)
	pod := pods.Pod{
		Labels:        labels,
		Placement:     pods.Placement{ServiceAccountName: db.Spec.ServiceAccountName},
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name:    "shard",
			Image:   image,
			Command: []string{"blastfleet"},
			Args:    args,
			Env:     st.Env,
			// makeblastdb is single-threaded; what a shard needs beyond a
			// default is spec.resources'.
			Resources:                pods.WithRequests(db.Spec.Resources, "250m", "256Mi"),
			VolumeMounts:             append([]corev1.VolumeMount{mount}, st.Mounts...),
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		}},
		Volumes: append([]corev1.Volume{vol}, st.Volumes...),
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: db.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:            ptr.To[int32](3),
			TTLSecondsAfterFinished: ptr.To[int32](86400),
			Template:                pod.Template(),
		},
	}
}
