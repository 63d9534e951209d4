package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// testBadCampaign: the API server refuses invalid campaigns (the CRD's
// schema and CEL rules), and both the CLI and kubectl show the reason,
// naming the field; nothing is created.
func testBadCampaign(t *testing.T, tg *target, db string) {
	name := tg.name("e2e-bad")
	stdout, stderr, err := tg.run(t, tg.cli, "submit", "-n", tg.ns, "--name", name, "--database", db,
		"--queries", "s3://"+tg.bucket+"/"+queriesKey, "--program", "blastn", "--partitions", "0")
	if err == nil {
		t.Fatalf("blastfleet submit --partitions 0 succeeded: %s", stdout)
	}
	for _, want := range []string{"blastfleet: ", "is invalid", "spec.partitions.count", "greater than or equal to 1"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("blastfleet submit --partitions 0: stderr lacks %q:\n%s", want, stderr)
		}
	}
	t.Logf("blastfleet submit --partitions 0: %s", strings.TrimSpace(stderr))

	bad := strings.Replace(tg.campaignYAML(name, db, queriesKey), "program: blastn", "program: blastq", 1)
	f := t.TempDir() + "/bad.yaml"
	if err := writeFile(f, bad); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = tg.run(t, "kubectl", "-n", tg.ns, "apply", "-f", f)
	if err == nil || !strings.Contains(stderr, `spec.program: Unsupported value: "blastq"`) {
		t.Errorf("kubectl apply of program blastq: %v, want the API server's refusal naming spec.program; output:\n%s%s", err, stdout, stderr)
	}
	var c v1alpha1.SearchCampaign
	if err := tg.c.Get(context.Background(), client.ObjectKey{Namespace: tg.ns, Name: name}, &c); !apierrors.IsNotFound(err) {
		t.Errorf("the refused campaign %s exists after all (get: %v)", name, err)
	}
}

// testQueriesMissing: a campaign whose queries object does not exist
// ends Failed, with a reason naming spec.queries and the object, which
// "blastfleet status" shows.
func testQueriesMissing(t *testing.T, tg *target, db string) {
	name := tg.name("e2e-noqueries")
	tg.cleanupCampaign(t, name)
	key := "e2e/no-such-queries.fa"
	tg.apply(t, tg.campaignYAML(name, db, key))
	c := tg.waitPhase(t, name, v1alpha1.CampaignFailed, time.Minute)
	reason, msg, ok := failedCondition(c)
	if !ok || reason != "QueriesNotFound" || !strings.Contains(msg, "spec.queries") || !strings.Contains(msg, key) {
		t.Errorf("Failed condition: %v %q %q; want reason QueriesNotFound naming spec.queries and %s", ok, reason, msg, key)
	}
	stdout, stderr, err := tg.run(t, tg.cli, "status", name, "-n", tg.ns)
	if err != nil {
		t.Fatalf("blastfleet status %s: %v\n%s", name, err, stderr)
	}
	for _, want := range []string{"Failed", "QueriesNotFound", key} {
		if !strings.Contains(stdout, want) {
			t.Errorf("blastfleet status %s lacks %q:\n%s", name, want, stdout)
		}
	}
}
