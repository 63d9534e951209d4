package kubecmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
)

// readCampaignFile reads the SearchCampaigns in a YAML or JSON file ("-"
// is standard input), several documents allowed, as kubectl create -f
// does. Each gets namespace unless it names its own; a different one
// than an explicit -n is refused, as kubectl refuses it.
func readCampaignFile(file string, stdin io.Reader, namespace string, nsGiven bool) ([]*unstructured.Unstructured, error) {
	r := stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("-f: %w", err)
		}
		defer f.Close()
		r = f
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var out []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, doc, err)
		}
		if len(m) == 0 {
			continue // an empty document between separators
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() != v1alpha1.GroupVersion.String() || u.GetKind() != "SearchCampaign" {
			return nil, fmt.Errorf("%s: document %d is a %s (apiVersion %q): submit creates SearchCampaigns (apiVersion %s); use kubectl apply -f for other kinds",
				file, doc, orDash(u.GetKind()), u.GetAPIVersion(), v1alpha1.GroupVersion)
		}
		switch ns := u.GetNamespace(); {
		case ns == "":
			u.SetNamespace(namespace)
		case nsGiven && ns != namespace:
			return nil, fmt.Errorf("%s: document %d: the campaign's namespace %q does not match -n %q", file, doc, ns, namespace)
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no SearchCampaign", file)
	}
	return out, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
