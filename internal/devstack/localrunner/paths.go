package localrunner

import (
	"fmt"
	"path/filepath"
)

// AnnotationLauncherLog is the MPIJob annotation naming its launcher log
// file. The runner sets it when it starts the launcher, since a local run
// has no pod whose log the CLI could read; "blastfleet logs" reads the file
// it names (internal/cli/kubecmd uses the same name).
const AnnotationLauncherLog = "blastfleet.io/launcher-log"

// LauncherLog is where an MPIJob's launcher output goes:
// <workDir>/<namespace>/<name>/launcher.log.
func LauncherLog(workDir, namespace, name string) string {
	return filepath.Join(runDir(workDir, namespace, name), "launcher.log")
}

// JobLog is where a Job pod's output goes: index-<i>.log per completion
// index of an Indexed Job, pod-<i>.log per parallel slot otherwise;
// retries append to the same file.
func JobLog(workDir, namespace, name string, indexed bool, index int) string {
	f := fmt.Sprintf("pod-%d.log", index)
	if indexed {
		f = fmt.Sprintf("index-%d.log", index)
	}
	return filepath.Join(runDir(workDir, namespace, name), f)
}

// LauncherLog is LauncherLog under this runner's work dir.
func (r *Runner) LauncherLog(namespace, name string) string {
	return LauncherLog(r.opts.WorkDir, namespace, name)
}

// JobLog is JobLog under this runner's work dir.
func (r *Runner) JobLog(namespace, name string, indexed bool, index int) string {
	return JobLog(r.opts.WorkDir, namespace, name, indexed, index)
}

func runDir(workDir, namespace, name string) string {
	return filepath.Join(workDir, namespace, name)
}
