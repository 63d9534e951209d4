// Package report renders a campaign's HTML report from what it left in
// object storage: the ledger (plan, status, every attempt) and the run
// records each partition's master writes beside it (runs/<holder>.json).
// The page is one self-contained file: its SVG figures are drawn here, so
// it needs no network and no script to show.
package report
