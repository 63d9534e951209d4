package blastvol

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

var (
	infoTitleRe = regexp.MustCompile(`(?m)^Database: (.*)$`)
	infoDateRe  = regexp.MustCompile(`(?m)^Date: ([^\t\n]+)`)
)

// Info is the title and date `blastdbcmd -info` prints for a database (a
// volume or an alias: the newest of its volumes' dates), as BLAST prints
// them in reports. bin is blastdbcmd's path ("": from PATH).
func Info(ctx context.Context, bin, db string) (title, date string, err error) {
	if bin == "" {
		bin = "blastdbcmd"
	}
	out, err := exec.CommandContext(ctx, bin, "-db", db, "-info").Output()
	if err != nil {
		return "", "", fmt.Errorf("blastdbcmd -db %s -info: %w", db, err)
	}
	t, d := infoTitleRe.FindSubmatch(out), infoDateRe.FindSubmatch(out)
	if t == nil || d == nil {
		return "", "", fmt.Errorf("blastdbcmd -db %s -info printed no title or date: %.200s", db, out)
	}
	return strings.TrimSpace(string(t[1])), string(d[1]), nil
}
