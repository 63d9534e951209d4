package kubecmd

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/internal/plan/search/fromapi"
)

// searchFieldFlags are the flags of submit that set a search field.
var searchFieldFlags = map[string]string{
	"spec.outfmt": "--outfmt", "spec.evalue": "--evalue", "spec.topHits": "--top-hits", "spec.transfer": "--transfer", "spec.batching": "--batching",
}

var optionField = regexp.MustCompile(`^spec\.blastOptions\[([0-9]+)\]$`)

// checkSearch reads obj as a typed SearchCampaign and checks its search
// as the operator will before planning (package fromapi), with the API
// server's defaults for what it leaves out. flagOptions are the
// --blast-option given, nil for a campaign from a file: from flags, an
// error names the flag as well as the field. A campaign that does not
// read as the type is left to the API server to refuse.
func checkSearch(obj *unstructured.Unstructured, flagOptions []string) error {
	var c v1alpha1.SearchCampaign
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &c); err != nil {
		return nil
	}
	s := c.Spec
	fromapi.Default(&s)
	_, err := fromapi.Spec(&s)
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	errs := joined.Unwrap()
	for i, e := range errs {
		var fe *fromapi.FieldError
		if !errors.As(e, &fe) {
			continue
		}
		if flagOptions == nil {
			errs[i] = fmt.Errorf("SearchCampaign %s: %w", c.Name, e)
		} else if flag := flagOf(fe.Field, flagOptions); flag != "" {
			errs[i] = fmt.Errorf("%s: %w", flag, e)
		}
	}
	return errors.Join(errs...)
}

// flagOf is the flag that set field, "" for none or several.
func flagOf(field string, options []string) string {
	if m := optionField.FindStringSubmatch(field); m != nil {
		if i, _ := strconv.Atoi(m[1]); i < len(options) {
			return "--blast-option " + options[i]
		}
	}
	return searchFieldFlags[field]
}
