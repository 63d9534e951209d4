// Package buildinfo says which build a binary is, for the commands'
// version output.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Line is "<program> <version> <go version> <os>/<arch>". version is what
// the build stamped (-ldflags "-X main.version=v0.3.0"); when empty, the
// module version Go recorded, else "(devel)".
func Line(program, version string) string {
	if version == "" {
		version = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			version = bi.Main.Version
		}
	}
	return fmt.Sprintf("%s %s %s %s/%s", program, version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
