package kubecmd

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"
	"sigs.k8s.io/yaml"

	"github.com/blastfleet/blastfleet/api/v1alpha1"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

// TestTableHasTheCRDPrinterColumns: get's table holds every printer
// column of the SearchCampaign CRD, in its order and with its priority
// (SITES only with -o wide), and each cell is what the column's JSONPath
// gives, so blastfleet get and kubectl get bsc agree.
func TestTableHasTheCRDPrinterColumns(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "config/crd/bases/blastfleet.io_searchcampaigns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	c := v1alpha1.SearchCampaign{}
	c.Name = "c1"
	running(&c.Status)
	c.Status.SitesSummary = "cloud=100 hpc-a=20"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
	if err != nil {
		t.Fatal(err)
	}
	table := campaignTable([]v1alpha1.SearchCampaign{c}, time.Now())
	next := 1 // column 0 is the name, which kubectl adds itself
	for _, pc := range crd.Spec.Versions[0].AdditionalPrinterColumns {
		i := next
		for i < len(campaignColumns) && campaignColumns[i].Name != pc.Name {
			i++
		}
		if i == len(campaignColumns) {
			t.Errorf("CRD printer column %s is not in get's table (or out of the CRD's order)", pc.Name)
			continue
		}
		next = i + 1
		if got := campaignColumns[i]; got.Priority != pc.Priority || got.Type != pc.Type {
			t.Errorf("column %s: priority %d type %s; the CRD says %d %s", pc.Name, got.Priority, got.Type, pc.Priority, pc.Type)
		}
		if pc.Type == "date" {
			continue // printed as an age by both
		}
		jp := jsonpath.New(pc.Name).AllowMissingKeys(true)
		if err := jp.Parse("{" + pc.JSONPath + "}"); err != nil {
			t.Fatal(err)
		}
		res, err := jp.FindResults(obj)
		if err != nil || len(res) != 1 || len(res[0]) != 1 {
			t.Fatalf("column %s: JSONPath %s found %v (%v)", pc.Name, pc.JSONPath, res, err)
		}
		if want, got := fmt.Sprint(res[0][0].Interface()), fmt.Sprint(table.Rows[0].Cells[i]); got != want {
			t.Errorf("column %s: cell %q, kubectl shows %q", pc.Name, got, want)
		}
	}
}
