package controllers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// resolveDatabase waits for the referenced database to be Ready and
// checks the campaign can search it, before anything is computed.
func (run *campaignRun) resolveDatabase(ctx context.Context) (bool, error) {
	c := run.c
	var db v1alpha1.BlastDatabase
	err := run.r.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: c.Spec.DatabaseRef.Name}, &db)
	if apierrors.IsNotFound(err) {
		return run.wait(v1alpha1.CampaignPending, "DatabaseNotFound",
			fmt.Sprintf("spec.databaseRef: BlastDatabase %q not found in namespace %s", c.Spec.DatabaseRef.Name, c.Namespace))
	}
	if err != nil {
		return false, fmt.Errorf("reading BlastDatabase %s: %w", c.Spec.DatabaseRef.Name, err)
	}
	run.r.Stores.defaultDatabase(&db)
	if db.Status.Phase != v1alpha1.DatabaseReady {
		return run.wait(v1alpha1.CampaignPending, "DatabaseNotReady",
			fmt.Sprintf("waiting for BlastDatabase %q to be Ready (it is %s)", db.Name, phaseOr(string(db.Status.Phase), "Pending")))
	}
	if want := programDBType(c.Spec.Program); want != db.Spec.Type {
		return run.fail("ProgramDatabaseMismatch",
			fmt.Sprintf("spec.program: %s searches a %s database, and BlastDatabase %q is %s", c.Spec.Program, want, db.Name, db.Spec.Type))
	}
	run.db = &db
	return true, nil
}

func phaseOr(p, def string) string {
	if p == "" {
		return def
	}
	return p
}

// programDBType is the database type a program searches.
func programDBType(p v1alpha1.Program) v1alpha1.DatabaseType {
	switch p {
	case "blastp", "blastx":
		return v1alpha1.DatabaseProtein
	}
	return v1alpha1.DatabaseNucleotide
}

// openStorage opens the campaign's location with the output credentials.
func (run *campaignRun) openStorage(ctx context.Context) (bool, error) {
	c := run.c
	bucket, prefix := splitLocation(run.loc)
	st, err := run.stores.Open(ctx, c.Namespace, c.Spec.Output, bucket, prefix)
	if err != nil {
		return run.waitStorage(err)
	}
	run.store = run.r.Bounds.bound(st)
	return true, nil
}

// reopenStorage opens the output store again with credentials read anew:
// the cached ones may be the keys a rotation replaced.
func (run *campaignRun) reopenStorage(ctx context.Context) (bool, error) {
	run.r.forgetSecrets(run.c.Namespace)
	return run.openStorage(ctx)
}
