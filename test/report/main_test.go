// Package report_test runs a real campaign (BLAST+, the engine, the CLI),
// writes its report with `blastfleet campaign report` and opens the page
// in headless Chromium: it must render its timeline with no console
// errors, and its screenshot is docs/images/report.png.
package report_test

import (
	"testing"

	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
