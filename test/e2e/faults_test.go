package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// midRun waits until the campaign's partition p0-r0 has committed a chunk
// and holds a live lease on another, so a fault lands while it works.
func (tg *target) midRun(t *testing.T, name string) {
	t.Helper()
	if !tg.midRunOrDone(t, name, false) {
		t.Fatalf("campaign %s completed before its fault could land mid-run", name)
	}
}

// midRunOrDone is midRun; with doneOK, a campaign that completes first
// ends the wait, and it says false. The one-node cluster's BLAST is not
// slowed, so under load a campaign there can finish before its partition
// is seen mid-run (CI runs); the local stack's BLAST is, and its fault
// tests always land mid-run.
func (tg *target) midRunOrDone(t *testing.T, name string, doneOK bool) bool {
	t.Helper()
	holder := name + "-p0-r0-"
	var c *v1alpha1.SearchCampaign
	done := false
	waitFor(t, 2*time.Minute, name+"-p0-r0 holding a lease after a commit", func() (bool, string) {
		c = tg.campaign(t, name)
		if doneOK && c.Status.Phase == v1alpha1.CampaignComplete {
			done = true
			return true, ""
		}
		if c.Status.Location == "" || c.Status.Phase != v1alpha1.CampaignRunning {
			return false, "phase " + string(c.Status.Phase)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		st := tg.ledgerStore(t, c)
		infos, err := st.List(ctx, "chunks/")
		if err != nil {
			return false, err.Error()
		}
		committed, held := 0, 0
		for _, in := range infos {
			switch {
			case strings.HasSuffix(in.Key, "/commit.json"):
				committed++
			case strings.HasSuffix(in.Key, "/lease.json"):
				b, _, err := st.GetBytes(ctx, in.Key)
				var l struct {
					Holder    string    `json:"holder"`
					ExpiresAt time.Time `json:"expiresAt"`
					Released  bool      `json:"released"`
				}
				if err == nil && json.Unmarshal(b, &l) == nil && strings.HasPrefix(l.Holder, holder) && !l.Released && l.ExpiresAt.After(time.Now()) {
					if !hasKey(infos, strings.TrimSuffix(in.Key, "lease.json")+"commit.json") {
						held++
					}
				}
			}
		}
		return committed >= 1 && held >= 1, fmt.Sprintf("%d chunks committed, %d leased by %s*", committed, held, holder)
	})
	return !done
}

func hasKey(infos []objstore.Info, key string) bool {
	for _, in := range infos {
		if in.Key == key {
			return true
		}
	}
	return false
}

// faultMidRun applies the campaign name, injects fault once partition
// p0-r0 is mid-run (midRun), and returns the campaign Complete.
//
// On the one-node cluster a campaign that completes before it is seen
// mid-run is said, the fault not injected, and its result still checked
// by the caller: the test then proves less, and says so.
func (tg *target) faultMidRun(t *testing.T, name, db string, fault func()) *v1alpha1.SearchCampaign {
	t.Helper()
	return tg.faultMidRunYAML(t, name, tg.campaignYAML(name, db, queriesKey), fault)
}

// faultMidRunYAML is faultMidRun of the campaign manifest yaml.
func (tg *target) faultMidRunYAML(t *testing.T, name, yaml string, fault func()) *v1alpha1.SearchCampaign {
	t.Helper()
	tg.apply(t, yaml)
	if tg.midRunOrDone(t, name, tg.node != nil) {
		fault()
	} else {
		t.Logf("campaign %s completed before its partition was seen mid-run: the fault was NOT exercised; the result is still checked", name)
	}
	return tg.waitPhase(t, name, v1alpha1.CampaignComplete, campaignTimeout)
}

// testOperatorKilled: the operator dies mid-run (SIGKILL) and the
// supervisor restarts it, as a Deployment would; the partitions never
// notice, so nothing is redone.
func testOperatorKilled(t *testing.T, tg *target, f *fixture, db string) {
	tg.localOnly(t, "kills the operator's process")
	name := tg.name("e2e-operator")
	// The partitions never see this fault, so the lease is the steady one.
	c := tg.faultMidRunYAML(t, name, tg.steadyCampaignYAML(name, db, queriesKey), func() { tg.stack.restart(t, "operator") })
	tg.verify(t, c, f, expect{maxAttempts: 1})
}

// testLauncherKilled: partition 0's launcher (mpirun) is SIGKILLed while
// it holds a lease; the operator replaces the failed partition and the
// chunk is redone once its lease (and the skew allowance) has passed.
func testLauncherKilled(t *testing.T, tg *target, f *fixture, db string) {
	tg.localOnly(t, "kills a launcher process")
	name := tg.name("e2e-launcher")
	c := tg.faultMidRun(t, name, db, func() { tg.stack.killLauncher(t, name+"-p0-r0") })
	if c.Status.Partitions.Replaced < 1 {
		t.Errorf("no partition replaced after its launcher was killed: %+v", c.Status.Partitions)
	}
	tg.verify(t, c, f, expect{maxAttempts: 2, retried: true})
}

// testWorkerRankKilled: a worker rank (not rank 0, the master) of
// partition 0 is SIGKILLed; mpirun aborts the partition, which is
// replaced, and its chunks are redone.
func testWorkerRankKilled(t *testing.T, tg *target, f *fixture, db string) {
	tg.localOnly(t, "kills an engine rank's process")
	name := tg.name("e2e-rank")
	c := tg.faultMidRun(t, name, db, func() { tg.stack.killWorkerRank(t, name+"-p0-r0") })
	if c.Status.Partitions.Replaced < 1 {
		t.Errorf("no partition replaced after a worker rank was killed: %+v", c.Status.Partitions)
	}
	tg.verify(t, c, f, expect{maxAttempts: 2, retried: true})
}

// testMinIORestarted: MinIO is killed mid-run and the supervisor starts
// it again on the same port and data. Partitions ride it out or fail
// and are replaced; either way the result is whole and nothing is
// committed twice.
func testMinIORestarted(t *testing.T, tg *target, f *fixture, db string) {
	tg.localOnly(t, "kills the MinIO server's process")
	name := tg.name("e2e-minio")
	c := tg.faultMidRun(t, name, db, func() { tg.stack.restart(t, "minio") })
	s := tg.verify(t, c, f, expect{maxAttempts: 3, problemsOK: true})
	t.Logf("after the restart: %d partitions replaced, %d chunk retries", c.Status.Partitions.Replaced, s.Retries)
}
