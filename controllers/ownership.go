package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	config "github.com/blastfleet/blastfleet/api/config/v1alpha1"
)

// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// OperatorNamespaceLabel on a namespace hands it to the operator release
// named by its value, one that watches that namespace alone (helm value
// operator.watchNamespace). Only cluster administrators label namespaces,
// so a campaign's author cannot pick the laxer of two operators.
const OperatorNamespaceLabel = config.OperatorNamespaceLabel

// DefaultNamespaceSelector is which namespaces a cluster-wide operator
// reconciles: every one no release of its own claims.
const DefaultNamespaceSelector = config.DefaultNamespaceSelector

// namespaces decides which namespaces' objects an operator reconciles:
// all with no selector (an operator that watches one namespace owns it),
// else those whose labels the selector matches.
type namespaces struct {
	reader   client.Reader
	selector labels.Selector
}

// parseNamespaceSelector parses --namespace-selector ("" selects every
// namespace).
func parseNamespaceSelector(s string) (labels.Selector, error) {
	if s == "" {
		return nil, nil
	}
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("--namespace-selector %q: %w", s, err)
	}
	return sel, nil
}

// owns says whether the operator reconciles objects in namespace ns. A
// namespace it cannot see (deleted meanwhile) is not its.
func (n namespaces) owns(ctx context.Context, ns string) (bool, error) {
	if !n.watched() {
		return true, nil
	}
	var obj corev1.Namespace
	if err := n.reader.Get(ctx, client.ObjectKey{Name: ns}, &obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading namespace %s for --namespace-selector: %w", ns, err)
	}
	return n.selector.Matches(labels.Set(obj.Labels)), nil
}

// watched reports whether namespaces must be watched: only with a
// selector, so a namespace handed over or back is reconciled at once.
func (n namespaces) watched() bool { return n.selector != nil && !n.selector.Empty() }

// enqueueAll maps a namespace to every object of list's kind in it.
func enqueueAll(c client.Reader, list func() client.ObjectList) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		l := list()
		if err := c.List(ctx, l, client.InNamespace(o.GetName())); err != nil {
			return nil
		}
		var out []reconcile.Request
		_ = meta.EachListItem(l, func(obj runtime.Object) error {
			if co, ok := obj.(client.Object); ok {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(co)})
			}
			return nil
		})
		return out
	})
}
