package kubecmd

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
)

// resourceFlags size the worker pods (spec.partitions.resources). Left
// out, the operator defaults them from the slots and the database
// (docs/crds.md), so they are for overriding it.
type resourceFlags struct {
	cpu, cpuLimit, memory string
}

func (r *resourceFlags) addFlags(f *pflag.FlagSet) {
	f.StringVar(&r.cpu, "cpu", "", "CPU request of each worker pod, e.g. 4 or 3500m (default: --slots, one core per searching rank)")
	f.StringVar(&r.cpuLimit, "cpu-limit", "", "CPU limit of each worker pod (default: none, so BLAST is never throttled)")
	f.StringVar(&r.memory, "memory", "", "memory request and limit of each worker pod, e.g. 16Gi; it bounds each slot's shard cache (default: the database's size per slot plus BLAST's working memory)")
}

// put sets the resources given in spec; a value that is no quantity is
// refused here, naming its flag.
func (r *resourceFlags) put(given given, spec map[string]any) error {
	for _, q := range []struct {
		flag, value string
		paths       [][]string
	}{
		{"cpu", r.cpu, [][]string{{"requests", "cpu"}}},
		{"cpu-limit", r.cpuLimit, [][]string{{"limits", "cpu"}}},
		// Request and limit alike: the limit decides what the shard
		// cache may use, and a pod over its request is evicted first.
		{"memory", r.memory, [][]string{{"requests", "memory"}, {"limits", "memory"}}},
	} {
		if !given(q.flag) {
			continue
		}
		v, err := resource.ParseQuantity(q.value)
		if err != nil || v.Sign() <= 0 {
			return fmt.Errorf("--%s %q: want a positive quantity such as 2, 500m or 16Gi", q.flag, q.value)
		}
		for _, p := range q.paths {
			setPath(spec, v.String(), append([]string{"partitions", "resources"}, p...)...)
		}
	}
	return nil
}
