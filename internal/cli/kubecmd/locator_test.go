package kubecmd

import (
	"testing"

	"github.com/spf13/cobra"
)

// A Locator's flags are added to several commands (hpc submit, status,
// cancel): whichever runs, its --kubeconfig is the one connect reads.
// Each AddFlags once made new options, so only the last command's counted.
func TestLocatorFlagsOnSeveralCommands(t *testing.T) {
	var l Locator
	first, second := &cobra.Command{Use: "submit"}, &cobra.Command{Use: "cancel"}
	l.AddFlags(first)
	l.AddFlags(second)
	if err := first.ParseFlags([]string{"--kubeconfig", "/tmp/kc", "-n", "lab"}); err != nil {
		t.Fatal(err)
	}
	if got := l.k.kubeconfig(); got != "/tmp/kc" {
		t.Errorf("--kubeconfig given to the first command reads %q", got)
	}
	if got := l.k.namespace(); got != "lab" {
		t.Errorf("-n given to the first command reads %q", got)
	}
}
