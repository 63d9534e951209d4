package devcmd

import (
	"fmt"
	"io"

	"text/tabwriter"

	"github.com/blastfleet/blastfleet/internal/devstack"
)

// printStack says what runs where and how to use it.
func printStack(w io.Writer, st *devstack.State, bin, dirArg string) {
	ready := ""
	if !st.ReadyAt.IsZero() {
		ready = fmt.Sprintf(" (ready %.1fs after start)", st.ReadyAt.Sub(st.StartedAt).Seconds())
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name, where, what string) { fmt.Fprintf(tw, "  %s\t%s\t%s\n", name, where, what) }
	if cl := st.Cluster; cl != nil {
		fmt.Fprintf(w, "One-node cluster in %s%s: node %s at %s on bridge %s, pods %s, Services %s (this machine only).\n\n",
			st.Dir, ready, cl.Node, cl.NodeIP, cl.Bridge, cl.PodCIDR, cl.ServiceCIDR)
		for _, c := range st.Components {
			row(c.Name, c.URL, fmt.Sprintf("pid %d", c.PID))
		}
		row("MinIO (S3)", st.MinIO.Endpoint, fmt.Sprintf("a pod in %s, bucket %s, credentials in Secret %s", cl.Namespace, st.MinIO.Bucket, st.MinIO.Secret))
		row("operators", "pods", fmt.Sprintf("blastfleet in %s, the Kubeflow MPI operator %s in mpi-operator (helm list -A)", cl.Namespace, cl.MPIOperator))
		if cl.Argo != "" {
			row("argo", "pods", fmt.Sprintf("Argo Workflows %s's workflow controller in namespace argo (kubectl get workflows -A)", cl.Argo))
		}
	} else {
		fmt.Fprintf(w, "Local stack in %s%s; everything listens on 127.0.0.1 only.\n\n", st.Dir, ready)
		printProcesses(st, row)
	}
	row("logs", st.Dir+"/logs/", "one file per component, supervisor.log for the supervisor and the runner")
	tw.Flush()
	for _, warn := range st.Warnings {
		fmt.Fprintf(w, "\nwarning: %s\n", warn)
	}
	fmt.Fprintf(w, "\nUse it:\n  export KUBECONFIG=%s\n", shellQuote(st.Kubeconfig))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, l := range [][2]string{
		{"kubectl get bsc,bdb", "# SearchCampaigns and BlastDatabases"},
		{fmt.Sprintf(`eval "$(%s dev env%s)"`, bin, dirArg), "# KUBECONFIG, and AWS_* for MinIO"},
		{bin + " status NAME --watch", "# a campaign's progress (logs NAME: its launcher's output)"},
		{bin + " dev status" + dirArg, "# what runs where, healthy or not"},
		{bin + " dev down" + dirArg, "# stop everything (--purge also deletes the data)"},
	} {
		fmt.Fprintf(tw, "  %s\t%s\n", l[0], l[1])
	}
	tw.Flush()
}

// printProcesses is the process-mode stack's components.
func printProcesses(st *devstack.State, row func(name, where, what string)) {
	if c := st.Component("kube-apiserver"); c != nil {
		etcd := ""
		if e := st.Component("etcd"); e != nil {
			etcd = ", etcd " + e.URL
		}
		row("kube-apiserver", c.URL, fmt.Sprintf("pid %d%s", c.PID, etcd))
	}
	if c := st.Component("minio"); c != nil {
		row("MinIO (S3)", c.URL, fmt.Sprintf("pid %d, bucket %s, credentials in Secret %s", c.PID, st.MinIO.Bucket, st.MinIO.Secret))
	}
	if c := st.Component("prometheus"); c != nil {
		row("Prometheus", c.URL, fmt.Sprintf("pid %d, scrapes the operator, the engine ranks, MinIO and etcd", c.PID))
	}
	if c := st.Component("operator"); c != nil {
		row("operator", c.URL, fmt.Sprintf("pid %d, restarted %d times, health %s", c.PID, c.Restarts, c.HealthURL))
	}
	row("local runner", fmt.Sprintf("in the supervisor, pid %d", st.Supervisor.PID), "runs MPIJobs and Jobs as processes; logs in "+st.Runner.WorkDir+"/<namespace>/<name>/")
}

// quoteEnv is KEY=VALUE as a shell export line.
func quoteEnv(k, v string) string { return "export " + k + "=" + shellQuote(v) }
