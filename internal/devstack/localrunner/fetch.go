package localrunner

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// fetch reads the object a reconcile request names into obj. false with
// no error: there is nothing to do (it is gone, and forget dropped what
// the runner kept of it; or the runner is shutting down).
func (r *Runner) fetch(ctx context.Context, req ctrl.Request, obj client.Object, kind string, forget func(types.NamespacedName)) (bool, error) {
	err := r.client.Get(ctx, req.NamespacedName, obj)
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		forget(req.NamespacedName)
		return false, nil
	case ctx.Err() != nil:
		return false, nil // shutting down
	}
	return false, fmt.Errorf("reading %s %s: %w", kind, req.NamespacedName, err)
}
