package policy

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Placement is where a campaign asks its partitions' pods to go.
type Placement struct {
	PriorityClassName string
	NodeSelector      map[string]string
	Tolerations       []corev1.Toleration
}

// Placement checks pl, whose fields sit under field (for example
// spec.partitions): a priority class, node selector or toleration can put
// pods ahead of others or on nodes reserved for someone else.
func (p Policy) Placement(field string, pl Placement) error {
	var errs []error
	if pc := pl.PriorityClassName; pc != "" && len(p.PriorityClasses) > 0 && !slices.Contains(p.PriorityClasses, pc) {
		errs = append(errs, notAllowed(field+".priorityClassName", pc, p.PriorityClasses))
	}
	if len(p.NodeSelectors) > 0 {
		keys := make([]string, 0, len(pl.NodeSelector))
		for k := range pl.NodeSelector {
			keys = append(keys, k)
		}
		sort.Strings(keys) // one order for the same spec: the message is the condition's
		for _, k := range keys {
			v := pl.NodeSelector[k]
			if !slices.Contains(p.NodeSelectors, k) && !slices.Contains(p.NodeSelectors, k+"="+v) {
				errs = append(errs, notAllowed(fmt.Sprintf("%s.nodeSelector[%s]", field, k), k+"="+v, p.NodeSelectors))
			}
		}
	}
	if len(p.TolerationKeys) > 0 {
		for i, t := range pl.Tolerations {
			f := fmt.Sprintf("%s.tolerations[%d].key", field, i)
			switch {
			case t.Key == "":
				errs = append(errs, &Violation{Reason: ReasonViolation, Field: f,
					Msg: fmt.Sprintf("a toleration without a key tolerates every taint, which the operator's policy does not allow (allowed keys: %s)", strings.Join(p.TolerationKeys, ", "))})
			case !slices.Contains(p.TolerationKeys, t.Key):
				errs = append(errs, notAllowed(f, t.Key, p.TolerationKeys))
			}
		}
	}
	return errors.Join(errs...)
}
