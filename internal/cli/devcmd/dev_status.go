package devcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/devstack"
)

type devStatusOptions struct {
	devOptions
	format string
}

func newDevStatusCmd() *cobra.Command {
	o := &devStatusOptions{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say what of the local stack runs where, and whether it is healthy",
		Long: `Show the local stack's components: pid, address, whether the process runs
and its health endpoint answers, restarts, log; and the processes the local
runner runs (MPIJob launchers and Job pods). Exits 1 unless the stack is up
and every component healthy.`,
		Example: `  blastfleet dev status
  blastfleet dev status -o json | jq '.health[] | {name, healthy}'`,
		Args: cobra.NoArgs,
		RunE: o.run,
	}
	o.addFlags(cmd)
	cmd.Flags().StringVarP(&o.format, "output", "o", "", "json: the state and health checks as JSON")
	return cmd
}

func (o *devStatusOptions) run(cmd *cobra.Command, _ []string) error {
	if err := cli.CheckFormat(o.format, "", "json"); err != nil {
		return err
	}
	dir, err := o.resolveDir()
	if err != nil {
		return err
	}
	rep, err := devstack.Status(cmd.Context(), dir)
	if errors.Is(err, devstack.ErrNoStack) {
		return fmt.Errorf("no local stack in %s: start one with %s dev up%s", dir, caller(cmd), o.dirArg())
	}
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if o.format == "json" {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		if err := e.Encode(rep); err != nil {
			return err
		}
	} else {
		printStatus(w, rep)
	}
	if !rep.Healthy() {
		return fmt.Errorf("the local stack in %s is not healthy (%s)", dir, unhealthy(rep))
	}
	return nil
}

func printStatus(w io.Writer, rep *devstack.StatusReport) {
	st := rep.State
	phase, sup := string(st.Phase), fmt.Sprintf("supervisor pid %d", st.Supervisor.PID)
	if !rep.Supervisor {
		sup = "supervisor not running"
		if st.Phase != devstack.PhaseStopped && st.Phase != devstack.PhaseFailed {
			phase = "crashed (its supervisor is gone; dev up starts it again)"
		}
	}
	since := ""
	if rep.Supervisor && st.Phase == devstack.PhaseReady {
		since = fmt.Sprintf(", up %s", time.Since(st.ReadyAt).Round(time.Second))
	}
	fmt.Fprintf(w, "Local stack in %s: %s%s, %s\n", st.Dir, phase, since, sup)
	if st.Message != "" {
		fmt.Fprintf(w, "  %s\n", st.Message)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMPONENT\tPID\tADDRESS\tHEALTH\tRESTARTS\tLOG")
	for _, c := range rep.Components {
		health := "ok"
		if !c.Healthy {
			health = "DOWN: " + c.Problem
		}
		pid := "-"
		if c.Running {
			pid = fmt.Sprint(c.PID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", c.Name, pid, c.URL, health, c.Restarts, c.Log)
	}
	runner := "ok"
	if !rep.Supervisor {
		runner = "DOWN: the supervisor is not running"
	}
	what := "local runner\t%d\t(in the supervisor)"
	if st.Cluster != nil {
		what = "supervisor\t%d\t(of the cluster's processes)"
	}
	fmt.Fprintf(tw, what+"\t%s\t-\t%s\n", st.Supervisor.PID, runner, st.Supervisor.Log)
	tw.Flush()
	fmt.Fprintf(w, "\nkubeconfig: %s (context %s)\nMinIO: %s, bucket %s, Secret %s\nPrometheus: %s\n",
		st.Kubeconfig, st.Context, st.MinIO.Endpoint, st.MinIO.Bucket, st.MinIO.Secret, st.Prometheus)
	if len(st.Runner.Processes) > 0 && rep.Supervisor {
		fmt.Fprintln(w, "\nThe local runner runs:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  KIND\tNAMESPACE/NAME\tPID\tMETRICS PORTS\tLOG")
		for _, p := range st.Runner.Processes {
			name := p.Namespace + "/" + p.Name
			if p.Index >= 0 {
				name += fmt.Sprintf(" #%d", p.Index)
			}
			ports := "-"
			if p.MetricsPorts[0] > 0 {
				ports = fmt.Sprintf("%d-%d", p.MetricsPorts[0], p.MetricsPorts[1])
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\n", p.Kind, name, p.PID, ports, p.Log)
		}
		tw.Flush()
	}
}

func unhealthy(rep *devstack.StatusReport) string {
	if !rep.Supervisor {
		return "its supervisor is not running"
	}
	var bad []string
	for _, c := range rep.Components {
		if !c.Healthy {
			bad = append(bad, c.Name+": "+c.Problem)
		}
	}
	if len(bad) == 0 {
		return "phase " + string(rep.State.Phase)
	}
	return strings.Join(bad, "; ")
}
