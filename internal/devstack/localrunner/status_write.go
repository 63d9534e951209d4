package localrunner

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// writeStatus writes obj's status (after, a pointer into obj) if it
// differs from before; a conflict (a stale cache) is retried shortly.
func (r *Runner) writeStatus(ctx context.Context, obj client.Object, before, after any) (ctrl.Result, error) {
	if equality.Semantic.DeepEqual(before, after) {
		return ctrl.Result{}, nil
	}
	if err := r.client.Status().Update(ctx, obj); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return ctrl.Result{RequeueAfter: requeueSoon}, nil
		}
		if ctx.Err() != nil {
			return ctrl.Result{}, nil // shutting down
		}
		return ctrl.Result{}, fmt.Errorf("writing %T %s/%s status: %w", obj, obj.GetNamespace(), obj.GetName(), err)
	}
	return ctrl.Result{}, nil
}
