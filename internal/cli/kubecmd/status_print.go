package kubecmd

import (
	"fmt"
	"github.com/dustin/go-humanize"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/cli"
	"github.com/blastfleet/blastfleet/internal/operator/argowf"
)

// progressWidth is the progress bar's width in cells.
const progressWidth = 40

// campaignView is what status shows of one campaign.
type campaignView struct {
	c        *v1alpha1.SearchCampaign
	parts    []partition
	partsErr error // listing the MPIJobs failed (no RBAC, no MPIJob CRD)
	tracker  *etaTracker
	bin      string // how to run us, for the results hint
}

// printDetail prints the campaign as "Key: value" lines, as kubectl
// describe does, then its conditions, failed queries and partitions.
func (v *campaignView) printDetail(w io.Writer, now time.Time) {
	c, s := v.c, v.c.Status
	tw := newTable(w)
	line := func(key, format string, args ...any) { fmt.Fprintf(tw, "%s:\t%s\n", key, fmt.Sprintf(format, args...)) }
	line("Name", "%s", c.Name)
	line("Namespace", "%s", c.Namespace)
	line("Phase", "%s", phaseLine(c, now))
	line("Search", "%s", searchLine(c))
	if s.Queries.Total == 0 {
		// percent and progressBar read 0 of 0 as done.
		line("Queries", "not counted yet: the campaign is not planned")
	} else {
		line("Queries", "%d of %d done (%s), %d failed", s.Queries.Done, s.Queries.Total, cli.Percent(int(s.Queries.Done), int(s.Queries.Total)), s.Queries.Failed)
		line("Progress", "%s", cli.ProgressBar(int(s.Queries.Done), int(s.Queries.Total), progressWidth))
	}
	line("Chunks", "%d of %d committed, %d leased, %d failed, %d pending (%d retries)",
		s.Chunks.Committed, s.Chunks.Total, s.Chunks.Leased, s.Chunks.Failed, s.Chunks.Pending, s.Chunks.Retries)
	if fa := s.Chunks.FailedAttempts; fa.ExitCode+fa.Signal+fa.Error+fa.Abandoned > 0 {
		line("Failed", "attempts: %d BLAST exit code, %d killed by a signal, %d other errors, %d abandoned (partition gone)",
			fa.ExitCode, fa.Signal, fa.Error, fa.Abandoned)
	}
	if n := s.Chunks.StoppedAttempts; n > 0 {
		line("Stopped", "%d attempts given up healthy when their partition was told to stop (not failures)", n)
	}
	for _, site := range s.Sites {
		line("Site "+site.Name, "%s", cli.SiteLine(int(site.QueriesDone), int(site.ChunksCommitted), int(site.Running), float64(site.LettersPerSecond)))
	}
	p := s.Partitions
	line("Partitions", "%d desired: %d running, %d queued, %d failed; %d replaced so far", p.Desired, p.Running, p.Queued, p.Failed, p.Replaced)
	line("ETA", "%s", eta(c, v.tracker, now))
	line("Location", "%s", campaignLocation(c))
	if s.Result != "" {
		line("Result", "%s (%s)", s.Result, v.bin+" results "+c.Name+" --output-file FILE")
		if s.ResultSHA256 != "" {
			line("SHA-256", "%s (%s), checked when assembled; results checks what it writes against it", s.ResultSHA256, humanize.IBytes(uint64(s.ResultBytes)))
		}
	} else {
		line("Result", "none yet: %s writes it once the campaign is Complete", v.bin+" results "+c.Name)
	}
	if s.Queries.Total > 0 {
		line("Report", "%s (timeline of every rank, task times, failures)", v.bin+" report "+c.Name)
	}
	tw.Flush()
	v.printConditions(w, now)
	v.printFailedQueries(w)
	v.printPartitions(w, now)
}

func phaseLine(c *v1alpha1.SearchCampaign, now time.Time) string {
	s := c.Status
	phase := string(s.Phase)
	if phase == "" {
		phase = "(not yet reconciled: is the operator running?)"
	}
	switch {
	case s.StartTime != nil && s.CompletionTime != nil:
		phase += fmt.Sprintf(", ran %s, finished %s ago", duration.HumanDuration(s.CompletionTime.Sub(s.StartTime.Time)), age(*s.CompletionTime, now))
	case s.StartTime != nil:
		phase += fmt.Sprintf(", started %s ago", age(*s.StartTime, now))
	}
	if c.Spec.Suspend && s.Phase != v1alpha1.CampaignSuspended {
		phase += " (suspend requested)"
	}
	if s.ObservedGeneration != 0 && s.ObservedGeneration < c.Generation {
		phase += " (the operator has not seen the latest spec yet)"
	}
	return phase
}

func searchLine(c *v1alpha1.SearchCampaign) string {
	sp := c.Spec
	parts := []string{fmt.Sprintf("%s against database %s", sp.Program, sp.DatabaseRef.Name)}
	if sp.Outfmt != "" {
		parts = append(parts, fmt.Sprintf("outfmt %q", sp.Outfmt))
	}
	if sp.MaxTargetSeqs != 0 {
		parts = append(parts, fmt.Sprintf("%d target seqs", sp.MaxTargetSeqs))
	}
	if sp.Evalue != "" {
		parts = append(parts, "evalue "+sp.Evalue)
	}
	for _, o := range sp.BlastOptions {
		opt := "-" + o.Name
		if o.Value != "" {
			opt += "=" + o.Value
		}
		parts = append(parts, opt)
	}
	return strings.Join(parts, ", ")
}

func (v *campaignView) printConditions(w io.Writer, now time.Time) {
	conds := v.c.Status.Conditions
	if len(conds) == 0 {
		return
	}
	fmt.Fprintln(w, "Conditions:")
	tw := newTable(w)
	fmt.Fprintln(tw, "  TYPE\tSTATUS\tREASON\tAGE\tMESSAGE")
	for _, c := range conds {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, age(c.LastTransitionTime, now), cli.Truncate(c.Message, 2*cli.MaxReasonWidth))
	}
	tw.Flush()
}

func (v *campaignView) printFailedQueries(w io.Writer) {
	fq := v.c.Status.FailedQueries
	if len(fq) == 0 {
		return
	}
	fmt.Fprintln(w, "Failed queries (index in the queries object):")
	for _, q := range fq {
		fmt.Fprintf(w, "  #%d: %s\n", q.Index, cli.Truncate(strings.Join(strings.Fields(q.Reason), " "), cli.MaxReasonWidth))
	}
	if n := v.c.Status.Queries.Failed; int(n) > len(fq) {
		fmt.Fprintf(w, "  ... %d failed in all; the ledger lists each: %s campaign status %s\n", n, v.bin, campaignLocation(v.c))
	}
}

func (v *campaignView) printPartitions(w io.Writer, now time.Time) {
	if v.partsErr != nil {
		fmt.Fprintf(w, "Partition jobs: not listed: %v\n", v.partsErr)
		return
	}
	if len(v.parts) == 0 {
		return
	}
	if v.parts[0].kind() == argowf.Workflow.Kind {
		fmt.Fprintf(w, "Partition jobs (Argo Workflows; a worker step's output: %s logs %s --partition N --worker W):\n", v.bin, v.c.Name)
	} else {
		fmt.Fprintf(w, "Partition jobs (MPIJobs; launcher output: %s logs %s --partition N):\n", v.bin, v.c.Name)
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "  NAME\tPARTITION\tRESTART\tSTATE\tAGE")
	for _, p := range v.parts {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\n", p.obj.GetName(), p.index, p.restart, p.state, age(p.obj.GetCreationTimestamp(), now))
	}
	tw.Flush()
}

// progressLine is one line per change for --watch on a pipe or a log.
func progressLine(c *v1alpha1.SearchCampaign, tracker *etaTracker, now time.Time) string {
	s := c.Status
	return fmt.Sprintf("%s  %s  %d/%d queries (%s), %d failed  chunks %d/%d  partitions %d/%d  ETA %s",
		now.Format(time.TimeOnly), orDash(string(s.Phase)), s.Queries.Done, s.Queries.Total,
		cli.Percent(int(s.Queries.Done), int(s.Queries.Total)), s.Queries.Failed,
		s.Chunks.Committed, s.Chunks.Total, s.Partitions.Running, s.Partitions.Desired, eta(c, tracker, now))
}
