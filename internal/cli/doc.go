// Package cli is what the command groups of the blastfleet CLI share: the
// root command with its flags and hooks (NewRoot, Options), how results
// and reports leave the CLI (WriteReport, StreamResults), and the lines a
// campaign's status is printed with. Each group lives in a package of its
// own below (dbcmd, campaigncmd, devcmd, kubecmd); cmd/blastfleet wires
// them to the root.
package cli
