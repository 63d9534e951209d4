package install

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// No Docker engine (nor hadolint) runs on these machines, so the
// Dockerfiles are checked by reading them.

var dockerfiles = []string{"Dockerfile", "images/worker/Dockerfile"}

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case
	args string
	line int
}

type stage struct {
	from, name   string
	instructions []instruction
}

func parseDockerfile(t testing.TB, path string) []stage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		stages []stage
		cur    strings.Builder
		start  int
		// ARGs before the first FROM: FROM ${X} is checked as X's default,
		// the image a plain docker build uses.
		global = map[string]string{}
	)
	flush := func() {
		s := strings.TrimSpace(cur.String())
		cur.Reset()
		if s == "" {
			return
		}
		cmd, args, _ := strings.Cut(s, " ")
		in := instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args), line: start}
		if in.cmd == "FROM" {
			fields := strings.Fields(in.args)
			st := stage{}
			for i := 0; i < len(fields); i++ {
				switch {
				case strings.HasPrefix(fields[i], "--"):
				case strings.EqualFold(fields[i], "AS") && i+1 < len(fields):
					st.name = fields[i+1]
					i++
				case st.from == "":
					st.from = os.Expand(fields[i], func(k string) string {
						if v, ok := global[k]; ok {
							return v
						}
						return "${" + k + "}"
					})
				}
			}
			stages = append(stages, st)
		}
		if len(stages) == 0 {
			if in.cmd != "ARG" {
				t.Errorf("%s:%d: %s before FROM", path, in.line, in.cmd)
			}
			if k, v, ok := strings.Cut(in.args, "="); ok {
				global[k] = v
			}
			return
		}
		last := &stages[len(stages)-1]
		last.instructions = append(last.instructions, in)
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue // comments, also inside continued RUN lines
		}
		if cur.Len() == 0 {
			if trimmed == "" {
				continue
			}
			start = n
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		flush()
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(stages) == 0 {
		t.Fatalf("%s: no FROM", path)
	}
	return stages
}

// Rolling tags that name no release: they need a digest to be a pin.
var rollingTags = []string{"latest", "nonroot", "debug", "debug-nonroot", "stable", "slim", "bookworm", "bookworm-slim", "trixie", "trixie-slim"}

func TestDockerfilesPinBaseImages(t *testing.T) {
	for _, df := range dockerfiles {
		stages := parseDockerfile(t, rootPath(t, df))
		var names []string
		for _, st := range stages {
			if slices.Contains(names, st.from) {
				names = append(names, st.name)
				continue // FROM an earlier stage
			}
			names = append(names, st.name)
			if strings.Contains(st.from, "$") {
				t.Errorf("%s: FROM %s: a build argument without a default defeats the pin", df, st.from)
				continue
			}
			ref, digest, hasDigest := strings.Cut(st.from, "@")
			if hasDigest && !regexp.MustCompile(`^sha256:[a-f0-9]{64}$`).MatchString(digest) {
				t.Errorf("%s: FROM %s: malformed digest", df, st.from)
			}
			// The tag follows the last colon after the last slash (a
			// registry may carry a port).
			tag := ""
			if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
				tag = ref[i+1:]
			}
			switch {
			case tag == "" && !hasDigest:
				t.Errorf("%s: FROM %s has neither tag nor digest", df, st.from)
			case tag == "latest":
				t.Errorf("%s: FROM %s uses latest", df, st.from)
			case slices.Contains(rollingTags, tag) && !hasDigest:
				t.Errorf("%s: FROM %s: %q is a rolling tag; pin a version tag or a digest", df, st.from, tag)
			case !hasDigest && !regexp.MustCompile(`\d+\.\d+`).MatchString(tag):
				t.Errorf("%s: FROM %s: tag %q names no version", df, st.from, tag)
			}
		}
	}
}

// The Go the builders use is go.mod's.
func TestDockerfilesUseGoModGo(t *testing.T) {
	b, err := os.ReadFile(rootPath(t, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	for _, df := range dockerfiles {
		found := false
		for _, st := range parseDockerfile(t, rootPath(t, df)) {
			if strings.HasPrefix(st.from, "golang:") {
				found = true
				if !strings.HasPrefix(st.from, "golang:"+string(m[1])+"-") && !strings.HasPrefix(st.from, "golang:"+string(m[1])+"@") {
					t.Errorf("%s: FROM %s; go.mod says go %s", df, st.from, m[1])
				}
			}
		}
		if !found {
			t.Errorf("%s has no golang builder stage", df)
		}
	}
}

// The final stage runs as a numeric non-root UID (so the kubelet can
// enforce runAsNonRoot), and no stage bakes credentials into the image.
func TestDockerfilesNonRootNoSecrets(t *testing.T) {
	secretName := regexp.MustCompile(`(?i)(passw|secret|token|credential|api_?key|access_?key|private_?key|aws_)`)
	for _, df := range dockerfiles {
		stages := parseDockerfile(t, rootPath(t, df))
		final := stages[len(stages)-1]
		user := ""
		for _, in := range final.instructions {
			if in.cmd == "USER" {
				user = in.args
			}
		}
		uid, _, _ := strings.Cut(user, ":")
		if n, err := strconv.Atoi(uid); err != nil || n == 0 {
			t.Errorf("%s: the final stage's USER is %q; want a numeric non-root UID", df, user)
		}
		for _, st := range stages {
			for _, in := range st.instructions {
				switch in.cmd {
				case "ENV", "ARG", "LABEL":
					if secretName.MatchString(in.args) {
						t.Errorf("%s:%d: %s %s looks like a credential", df, in.line, in.cmd, in.args)
					}
				case "COPY", "ADD":
					if regexp.MustCompile(`(?i)(id_rsa|\.pem|\.key|\.env|credentials|kubeconfig)(\s|$)`).MatchString(in.args) &&
						!strings.Contains(in.args, "sshd_config") {
						t.Errorf("%s:%d: %s %s copies what looks like a secret", df, in.line, in.cmd, in.args)
					}
					if in.cmd == "ADD" {
						t.Errorf("%s:%d: ADD: use COPY (ADD fetches URLs and unpacks archives)", df, in.line)
					}
				case "RUN":
					if regexp.MustCompile(`(curl|wget)[^|]*\|\s*(ba)?sh`).MatchString(in.args) {
						t.Errorf("%s:%d: pipes a download into a shell", df, in.line)
					}
				}
			}
		}
	}
}

// copySources are the build-context sources of COPY instructions (not
// COPY --from=<stage>).
func copySources(in instruction) []string {
	fields := strings.Fields(in.args)
	var srcs []string
	for _, f := range fields {
		if strings.HasPrefix(f, "--from=") {
			return nil
		}
		if !strings.HasPrefix(f, "--") {
			srcs = append(srcs, f)
		}
	}
	if len(srcs) < 2 {
		return nil
	}
	return srcs[:len(srcs)-1]
}

// Every COPY source exists and is in the build context .dockerignore
// leaves.
func TestDockerfilesCopyExistingFiles(t *testing.T) {
	ignore := readDockerignore(t)
	for _, df := range dockerfiles {
		for _, st := range parseDockerfile(t, rootPath(t, df)) {
			for _, in := range st.instructions {
				if in.cmd != "COPY" {
					continue
				}
				for _, src := range copySources(in) {
					rel := filepath.Clean(strings.TrimPrefix(src, "./"))
					if _, err := os.Stat(rootPath(t, rel)); err != nil {
						t.Errorf("%s:%d: COPY %s: %v", df, in.line, src, err)
						continue
					}
					if ignore.excluded(rel) {
						t.Errorf("%s:%d: COPY %s, but .dockerignore leaves it out of the build context", df, in.line, src)
					}
				}
			}
		}
	}
	// And the context does not carry the repository's heavy or private parts.
	for _, p := range []string{".git", "bin", "bench", "docs", "charts", "test"} {
		if !ignore.excluded(p) {
			t.Errorf(".dockerignore sends %s to the build context", p)
		}
	}
}

type dockerignore []struct {
	pattern string
	negate  bool
}

func readDockerignore(t testing.TB) dockerignore {
	t.Helper()
	b, err := os.ReadFile(rootPath(t, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var d dockerignore
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		neg := strings.HasPrefix(line, "!")
		d = append(d, struct {
			pattern string
			negate  bool
		}{filepath.Clean(strings.TrimPrefix(line, "!")), neg})
	}
	return d
}

// excluded follows Docker's rules: the last matching pattern wins, and a
// pattern matching a parent directory matches what is below it; "**"
// matches any number of directories.
func (d dockerignore) excluded(rel string) bool {
	parts := strings.Split(rel, "/")
	out := false
	for _, p := range d {
		for i := 1; i <= len(parts); i++ {
			if globMatch(p.pattern, strings.Join(parts[:i], "/")) {
				out = !p.negate
				break
			}
		}
	}
	return out
}

func globMatch(pattern, path string) bool {
	if rest, ok := strings.CutPrefix(pattern, "**/"); ok {
		segs := strings.Split(path, "/")
		for i := range segs {
			if globMatch(rest, strings.Join(segs[i:], "/")) {
				return true
			}
		}
		return false
	}
	ok, _ := filepath.Match(pattern, path)
	return ok
}

// goBuild is one go build: its package and build tags.
type goBuild struct{ pkg, tags string }

var goBuildRE = regexp.MustCompile(`go build\b([^;&|\n]*)`)

func goBuilds(cmds string) []goBuild {
	var out []goBuild
	for _, m := range goBuildRE.FindAllStringSubmatch(cmds, -1) {
		fields := strings.Fields(m[1])
		b := goBuild{}
		for i := 0; i < len(fields); i++ {
			f := strings.Trim(fields[i], `"'`)
			switch {
			case f == "-tags" && i+1 < len(fields):
				b.tags = strings.Trim(fields[i+1], `"'`)
				i++
			case strings.HasPrefix(f, "-tags="):
				b.tags = strings.Trim(strings.TrimPrefix(f, "-tags="), `"'`)
			case (f == "-o" || f == "-ldflags") && i+1 < len(fields):
				i++
				if f == "-ldflags" && strings.HasPrefix(fields[i], `"`) {
					for i < len(fields)-1 && !strings.HasSuffix(fields[i], `"`) {
						i++
					}
				}
			case strings.HasPrefix(f, "./"):
				b.pkg = f
			}
		}
		out = append(out, b)
	}
	return out
}

// Every Go program the Dockerfiles build is one make build builds, with
// the same build tags.
func TestDockerfilesBuildWhatMakeBuilds(t *testing.T) {
	cmd := exec.Command("make", "-n", "build", "GO=go")
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		skipOrFatal(t, "make -n build: %v", err)
	}
	made := goBuilds(string(out))
	if len(made) == 0 {
		t.Fatalf("make -n build runs no go build:\n%s", out)
	}
	var built []goBuild
	for _, df := range dockerfiles {
		for _, st := range parseDockerfile(t, rootPath(t, df)) {
			for _, in := range st.instructions {
				if in.cmd != "RUN" {
					continue
				}
				for _, b := range goBuilds(in.args) {
					if !slices.Contains(made, b) {
						t.Errorf("%s:%d: go build %s (tags %q) is not something make build builds (%v)", df, in.line, b.pkg, b.tags, made)
					}
					built = append(built, b)
				}
			}
		}
	}
	// And the images hold every program make build builds, but the local
	// stack's (blastfleet dev runs it on a workstation, never in a pod).
	for _, m := range made {
		if m.pkg == "./cmd/blastfleet-dev" {
			continue
		}
		if !slices.Contains(built, m) {
			t.Errorf("make build builds %s (tags %q), which no image does", m.pkg, m.tags)
		}
	}
}

// installedVersion is the Debian package's version here, where the tests
// run BLAST+ and OpenMPI.
func installedVersion(t testing.TB, pkg string) string {
	t.Helper()
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil || len(out) == 0 {
		skipOrFatal(t, "dpkg-query -W %s: %v (hack/install-deps.sh installs it)", pkg, err)
	}
	return string(out)
}

// The worker image pins the BLAST+ and OpenMPI the tests ran against.
func TestWorkerDockerfilePinsTestedVersions(t *testing.T) {
	b, err := os.ReadFile(rootPath(t, "images/worker/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"ncbi-blast+", "openmpi-bin", "libopenmpi-dev"} {
		want := installedVersion(t, pkg)
		pins := regexp.MustCompile(regexp.QuoteMeta(pkg)+`=(\S+)`).FindAllSubmatch(b, -1)
		if len(pins) == 0 {
			t.Errorf("images/worker/Dockerfile installs %s without pinning a version", pkg)
		}
		for _, p := range pins {
			if string(p[1]) != want {
				t.Errorf("images/worker/Dockerfile pins %s=%s; the tests run against %s", pkg, p[1], want)
			}
		}
	}
	// The runtime is the Debian release those packages come from.
	stages := parseDockerfile(t, rootPath(t, "images/worker/Dockerfile"))
	osRelease, err := os.ReadFile("/etc/os-release")
	if err == nil && strings.Contains(string(osRelease), `VERSION_CODENAME=bookworm`) {
		final := stages[len(stages)-1].from
		if !strings.HasPrefix(final, "debian:12") && !strings.HasPrefix(final, "debian:bookworm") {
			t.Errorf("the worker image is FROM %s; the tested packages are Debian 12 (bookworm)'s", final)
		}
	}
	// MPIJob workers run the image's default command: sshd, as the user
	// whose home holds the SSH keys (spec.sshAuthMountPath).
	final := stages[len(stages)-1]
	var cmdArgs string
	for _, in := range final.instructions {
		if in.cmd == "CMD" {
			cmdArgs = in.args
		}
	}
	if !strings.Contains(cmdArgs, "/usr/sbin/sshd") || !strings.Contains(cmdArgs, "-D") {
		t.Errorf("the worker image's CMD is %s; MPIJob workers need sshd in the foreground", cmdArgs)
	}
	cfg, err := os.ReadFile(rootPath(t, "images/worker/sshd_config"))
	if err != nil {
		t.Fatal(err)
	}
	// The pid file goes to /tmp, the emptyDir of a read-only root
	// filesystem (restricted pods); the home directory is not writable.
	for _, want := range []string{"HostKey /home/mpiuser/.ssh/id_rsa", "PidFile /tmp/", "StrictModes no"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("images/worker/sshd_config lacks %q", want)
		}
	}
}
