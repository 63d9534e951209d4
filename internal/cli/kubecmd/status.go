package kubecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
)

type statusOptions struct {
	format   string
	watch    bool
	wait     bool
	exitCode bool
	timeout  time.Duration
}

func newStatusCmd() *cobra.Command {
	o := &statusOptions{}
	k := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "status NAME",
		Short: "Show one campaign in detail: progress bar, chunks, partitions, ETA",
		Long: `Show a SearchCampaign as the operator last saw it: phase and conditions,
queries done and failed with a progress bar, chunks by state, partitions by
state and the partition MPIJobs, the failed queries and their reasons,
where the ledger and the result are, and an ETA.

The ETA is the queries still to do divided by the rate at which queries
finish. Without --watch the rate is the average since the campaign started
(status.startTime); while --watch runs it is measured over what the watch
saw in the last 5 minutes, once it has seen progress over 10 seconds. The
operator refreshes the status from the ledger every 15 s by default (every
3 s or less once every chunk left is being searched).

--watch follows the campaign's changes as the API server reports them, and
refreshes at least every 2 seconds, until the campaign is Complete (exit 0)
or Failed (exit 1): on a terminal it redraws in place with a live progress
bar; on a pipe or in a log it prints one line per change. -o json|yaml
prints the SearchCampaign object (each change, with --watch).

--wait is for scripts: it prints nothing until the campaign has an
outcome, then shows it once and exits with that outcome's code: 0
Complete, 2 Failed, 3 Complete but Degraded (queries failed after every
retry), 4 Suspended, 5 --timeout passed first; 1 is any other error
(docs/cli.md). --watch exits with the same codes for Complete and
Failed. --exit-code without --wait exits with the code of the outcome
the campaign has now, 6 if it has none yet.`,
		Example: `  blastfleet status human-vs-sprot
  blastfleet status human-vs-sprot --watch
  blastfleet status human-vs-sprot --wait --timeout 6h; echo "exit $?"
  blastfleet status human-vs-sprot -o json | jq .status.queries`,
		Args: cobra.ExactArgs(1),
		RunE: kubeRun(k, o.run),
	}
	cmd.Flags().StringVarP(&o.format, "output", "o", "", "output format: json or yaml (default: the detail view)")
	cmd.Flags().BoolVarP(&o.watch, "watch", "w", false, "refresh until the campaign is Complete or Failed")
	cmd.Flags().BoolVar(&o.wait, "wait", false, "wait quietly for the campaign's outcome and exit with its code (0 Complete, 2 Failed, 3 Degraded, 4 Suspended, 5 timeout)")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 0, "with --wait or --watch, give up after this long (exit 5); 0 waits for ever")
	cmd.Flags().BoolVar(&o.exitCode, "exit-code", false, "exit with the code of the campaign's outcome so far (6: none yet)")
	cmd.MarkFlagsMutuallyExclusive("wait", "watch")
	k.addFlags(cmd)
	k.completeCampaigns(cmd, false)
	return cmd
}

func (o *statusOptions) run(ctx context.Context, cmd *cobra.Command, kc *kube, args []string) error {
	if err := cli.CheckFormat(o.format, "", "json", "yaml"); err != nil {
		return err
	}
	if o.timeout < 0 || o.timeout > 0 && !o.wait && !o.watch {
		return fmt.Errorf("--timeout %s: give a positive duration, with --wait or --watch", o.timeout)
	}
	c, err := kc.getCampaign(ctx, args[0])
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	tracker := &etaTracker{}
	tracker.observe(time.Now(), c)
	if !o.watch && !o.wait {
		if err := o.show(ctx, w, kc, c, tracker); err != nil || !o.exitCode {
			return err
		}
		if done, err := o.finished(c, kc); done {
			return err
		}
		return &cli.CodedError{Code: cli.ExitRunning, Err: fmt.Errorf("campaign %s is %s: no outcome yet", c.Name, phaseOf(c))}
	}
	wctx := ctx
	if o.timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeoutCause(ctx, o.timeout, errWaitTimeout)
		defer cancel()
	}
	err = o.watchUntilDone(wctx, cmd, kc, c, tracker)
	if errors.Is(context.Cause(wctx), errWaitTimeout) && cli.ExitCode(err) == cli.ExitError {
		if o.wait { // the state it was left in, for the script's log
			if last, gerr := kc.getCampaign(ctx, c.Name); gerr == nil {
				_ = o.show(ctx, w, kc, last, tracker)
			}
		}
		return &cli.CodedError{Code: cli.ExitTimeout, Err: fmt.Errorf("campaign %s has no outcome after --timeout %s", c.Name, o.timeout)}
	}
	return err
}

// errWaitTimeout is the cause of the context that --timeout ends.
var errWaitTimeout = errors.New("--timeout passed")

// phaseOf is the campaign's phase, Pending before the operator wrote one.
func phaseOf(c *v1alpha1.SearchCampaign) v1alpha1.CampaignPhase {
	if c.Status.Phase == "" {
		return v1alpha1.CampaignPending
	}
	return c.Status.Phase
}

// show prints the campaign once, in the chosen format.
func (o *statusOptions) show(ctx context.Context, w io.Writer, kc *kube, c *v1alpha1.SearchCampaign, tracker *etaTracker) error {
	if o.format != "" {
		return printObject(w, o.format, withType(c))
	}
	v := &campaignView{c: c, tracker: tracker, bin: kc.bin}
	v.parts, v.partsErr = kc.partitions(ctx, c)
	if meta.IsNoMatchError(v.partsErr) {
		v.parts, v.partsErr = nil, nil // no MPI operator here: nothing to list
	}
	v.printDetail(w, time.Now())
	return nil
}

// watchUntilDone reads the campaign again at each change the API server
// reports and at least every cli.WatchInterval (the ages and the ETA move on),
// until it is Complete or Failed: the last transition is seen at once.
func (o *statusOptions) watchUntilDone(ctx context.Context, cmd *cobra.Command, kc *kube, c *v1alpha1.SearchCampaign, tracker *etaTracker) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes := kc.watchCampaign(ctx, c)
	w := cmd.OutOrStdout()
	redraw := cli.IsTerminal(w) && o.format == ""
	last := ""
	for {
		key := watchKey(c, o.format)
		changed := key != last
		switch {
		case o.wait: // quiet until the outcome
		case redraw:
			fmt.Fprint(w, "\x1b[H\x1b[2J") // redraw in place: ages and the ETA move on
			if err := o.show(ctx, w, kc, c, tracker); err != nil {
				return err
			}
		case changed && o.format != "":
			if err := printObject(w, o.format, withType(c)); err != nil {
				return err
			}
		case changed && last == "":
			if err := o.show(ctx, w, kc, c, tracker); err != nil {
				return err
			}
		case changed:
			fmt.Fprintln(w, progressLine(c, tracker, time.Now()))
		}
		last = key
		if done, err := o.finished(c, kc); done {
			if o.wait {
				if perr := o.show(ctx, w, kc, c, tracker); perr != nil {
					return perr
				}
			}
			if err == nil && o.format == "" {
				cli.Hint(cmd.ErrOrStderr(), "campaign %s is Complete; get its result with: %s", c.Name, kc.suggest(c.Namespace, "results "+c.Name+" --output-file FILE"))
			}
			return err
		}
		next, err := o.poll(ctx, cmd, kc, c, changes)
		if err != nil {
			return err
		}
		c = next
		tracker.observe(time.Now(), c)
	}
}

// poll waits for a change or cli.WatchInterval and reads the campaign again;
// an API server that is away for a while (restarting) is reported and
// retried.
func (o *statusOptions) poll(ctx context.Context, cmd *cobra.Command, kc *kube, c *v1alpha1.SearchCampaign, changes <-chan struct{}) (*v1alpha1.SearchCampaign, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("stopped watching campaign %s before it finished: %w", c.Name, context.Cause(ctx))
		case <-time.After(cli.WatchInterval):
		case <-changes:
		}
		var next v1alpha1.SearchCampaign
		err := kc.c.Get(ctx, client.ObjectKeyFromObject(c), &next)
		switch {
		case err == nil && next.UID != c.UID, apierrors.IsNotFound(err):
			return nil, fmt.Errorf("campaign %s/%s was deleted while it was watched", c.Namespace, c.Name)
		case err == nil:
			return &next, nil
		case ctx.Err() != nil:
			return nil, fmt.Errorf("stopped watching campaign %s before it finished: %w", c.Name, context.Cause(ctx))
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: reading campaign %s: %v (retrying)\n", time.Now().Format(time.TimeOnly), c.Name, kc.explain(err))
	}
}

// finished reports whether the campaign has an outcome, and its exit
// code as an error: Complete is success; Failed, Complete but Degraded,
// and Suspended (for --wait and --exit-code: a watch goes on, the user
// may resume) are coded errors carrying the operator's reason.
func (o *statusOptions) finished(c *v1alpha1.SearchCampaign, kc *kube) (bool, error) {
	coded := func(code int, cond, what string) error {
		why := "no reason recorded"
		if cd := meta.FindStatusCondition(c.Status.Conditions, cond); cd != nil {
			why = cd.Reason + ": " + cd.Message
		}
		return &cli.CodedError{Code: code, Err: fmt.Errorf("campaign %s %s: %s (details: %s)", c.Name, what, why, kc.suggest(c.Namespace, "status "+c.Name))}
	}
	switch c.Status.Phase {
	case v1alpha1.CampaignComplete:
		if meta.IsStatusConditionTrue(c.Status.Conditions, v1alpha1.ConditionDegraded) {
			return true, coded(cli.ExitDegraded, v1alpha1.ConditionDegraded, "is Complete but Degraded")
		}
		return true, nil
	case v1alpha1.CampaignFailed:
		return true, coded(cli.ExitFailed, v1alpha1.ConditionFailed, "failed")
	case v1alpha1.CampaignSuspended:
		if o.wait || !o.watch {
			return true, &cli.CodedError{Code: cli.ExitSuspended, Err: fmt.Errorf("campaign %s is Suspended (resume it with: %s)",
				c.Name, kc.suggest(c.Namespace, "resume "+c.Name))}
		}
	}
	return false, nil
}

// watchKey changes when a watch has something new to print: for the
// objects (-o), any change; for the progress lines, a change of what
// they show, not a rewrite of the same counts.
func watchKey(c *v1alpha1.SearchCampaign, format string) string {
	if format != "" {
		return c.ResourceVersion
	}
	data, _ := json.Marshal(struct {
		Status  v1alpha1.SearchCampaignStatus
		Suspend bool
	}{c.Status, c.Spec.Suspend})
	return string(data)
}
