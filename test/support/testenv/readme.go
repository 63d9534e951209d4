package testenv

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ReadmeProgram returns the lines of README.md's sh block under the
// "## heading" that run program, as written there (continuations joined,
// trailing comments dropped), each as its arguments after program, so a
// test runs what users copy and cannot drift from it.
func ReadmeProgram(t testing.TB, root, heading, program string) [][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	if block == nil {
		t.Fatalf("README.md section %q has no sh block", heading)
	}
	var cmds [][]string
	for _, line := range strings.Split(strings.ReplaceAll(block[1], "\\\n", " "), "\n") {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		if len(fields) > 0 && fields[0] == program {
			cmds = append(cmds, fields[1:])
		}
	}
	return cmds
}
