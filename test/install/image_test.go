package install

import (
	"archive/tar"
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The images make images built (hack/build-images.sh, archives in
// $BLASTFLEET_IMAGES) are what their Dockerfiles say: the final stage's
// user, entrypoint, command, working directory, environment and ports,
// every file it copies, and every Debian package it installs at the
// version it pins. Built here from local bases, they must not drift from
// the images a registry build of the same files gives users.
func TestImagesMatchDockerfiles(t *testing.T) {
	dir := os.Getenv("BLASTFLEET_IMAGES")
	if dir == "" {
		skipOrFatal(t, "BLASTFLEET_IMAGES is not set (make images prints the directory)")
		return
	}
	for name, df := range map[string]string{
		"operator":     "Dockerfile",
		"worker":       "images/worker/Dockerfile",
		"pause":        "images/pause/Dockerfile",
		"mpi-operator": "images/mpi-operator/Dockerfile",
		"minio":        "images/minio/Dockerfile",
	} {
		t.Run(name, func(t *testing.T) {
			img := readImage(t, filepath.Join(dir, name+".tar"))
			stages := parseDockerfile(t, rootPath(t, df))
			final := stages[len(stages)-1]
			want := declared(final)
			if img.Config.User != want.user {
				t.Errorf("user %q, Dockerfile says %q", img.Config.User, want.user)
			}
			if want.entrypoint != nil && !slices.Equal(img.Config.Entrypoint, want.entrypoint) {
				t.Errorf("entrypoint %q, Dockerfile says %q", img.Config.Entrypoint, want.entrypoint)
			}
			if want.cmd != nil && !slices.Equal(img.Config.Cmd, want.cmd) {
				t.Errorf("cmd %q, Dockerfile says %q", img.Config.Cmd, want.cmd)
			}
			if want.workdir != "" && img.Config.WorkingDir != want.workdir {
				t.Errorf("working dir %q, Dockerfile says %q", img.Config.WorkingDir, want.workdir)
			}
			for _, e := range want.env {
				if !slices.Contains(img.Config.Env, e) {
					t.Errorf("env lacks %s (has %v)", e, img.Config.Env)
				}
			}
			for _, p := range want.expose {
				if _, ok := img.Config.ExposedPorts[p+"/tcp"]; !ok {
					t.Errorf("port %s not exposed (%v)", p, img.Config.ExposedPorts)
				}
			}
			for _, f := range want.files {
				if !img.files[f] {
					t.Errorf("%s is not in the image", f)
				}
			}
			for pkg, version := range want.packages {
				got, ok := img.packages[pkg]
				switch {
				case !ok:
					t.Errorf("Debian package %s is not installed", pkg)
				case version != "" && got != version:
					t.Errorf("Debian package %s is %s, Dockerfile pins %s", pkg, got, version)
				}
			}
		})
	}
}

// image is what a docker-archive holds: its config and, over all layers,
// its files and installed Debian packages.
type image struct {
	Config struct {
		User         string              `json:"User"`
		Entrypoint   []string            `json:"Entrypoint"`
		Cmd          []string            `json:"Cmd"`
		WorkingDir   string              `json:"WorkingDir"`
		Env          []string            `json:"Env"`
		ExposedPorts map[string]struct{} `json:"ExposedPorts"`
	} `json:"config"`
	files    map[string]bool
	packages map[string]string
}

func readImage(t *testing.T, archive string) *image {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatalf("%v (make images builds it)", err)
	}
	defer f.Close()
	entries := tarEntries(t, f)
	var manifest []struct {
		Config string   `json:"Config"`
		Layers []string `json:"Layers"`
	}
	if err := json.Unmarshal(entries["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("%s: manifest.json: %v", archive, err)
	}
	img := &image{files: map[string]bool{}, packages: map[string]string{}}
	if err := json.Unmarshal(entries[manifest[0].Config], img); err != nil {
		t.Fatalf("%s: config: %v", archive, err)
	}
	for _, l := range manifest[0].Layers {
		lr := tar.NewReader(strings.NewReader(string(entries[l])))
		for {
			h, err := lr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: layer %s: %v", archive, l, err)
			}
			name := "/" + strings.TrimPrefix(path.Clean(h.Name), "./")
			img.files[name] = true
			if name == "/var/lib/dpkg/status" { // the last layer's wins
				img.packages = dpkgStatus(lr)
			}
		}
	}
	return img
}

// dpkgStatus reads installed packages and their versions.
func dpkgStatus(r io.Reader) map[string]string {
	out := map[string]string{}
	var pkg, version string
	installed := false
	flush := func() {
		if pkg != "" && installed {
			out[pkg] = version
		}
		pkg, version, installed = "", "", false
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "Package: "):
			pkg = strings.TrimPrefix(line, "Package: ")
		case strings.HasPrefix(line, "Version: "):
			version = strings.TrimPrefix(line, "Version: ")
		case strings.HasPrefix(line, "Status: "):
			installed = strings.HasSuffix(line, " installed")
		}
	}
	flush()
	return out
}

// declaration is what a Dockerfile's final stage says the image is.
type declaration struct {
	user, workdir   string
	entrypoint, cmd []string
	env, expose     []string
	files           []string
	packages        map[string]string // apt-get install NAME[=VERSION]
}

var aptInstall = regexp.MustCompile(`apt-get install ([^&;|]*)`)

func declared(st stage) declaration {
	d := declaration{packages: map[string]string{}}
	args := map[string]string{}
	expand := func(s string) string {
		return os.Expand(s, func(k string) string { return args[k] })
	}
	for _, in := range st.instructions {
		a := expand(in.args)
		switch in.cmd {
		case "ARG":
			k, v, _ := strings.Cut(in.args, "=")
			args[k] = v
		case "USER":
			d.user = a
		case "WORKDIR":
			d.workdir = a
		case "ENTRYPOINT":
			_ = json.Unmarshal([]byte(a), &d.entrypoint)
		case "CMD":
			_ = json.Unmarshal([]byte(a), &d.cmd)
		case "ENV":
			d.env = append(d.env, envPairs(a)...)
		case "EXPOSE":
			d.expose = append(d.expose, strings.Fields(a)...)
		case "COPY":
			var words []string
			for _, f := range strings.Fields(a) {
				if !strings.HasPrefix(f, "--") {
					words = append(words, f)
				}
			}
			dst := words[len(words)-1]
			for _, src := range words[:len(words)-1] {
				switch {
				case strings.HasSuffix(dst, "/"):
					d.files = append(d.files, path.Join(dst, path.Base(src)))
				case strings.HasPrefix(dst, "/"):
					d.files = append(d.files, dst)
				default:
					d.files = append(d.files, path.Join(d.workdir, dst))
				}
			}
		case "RUN":
			for _, m := range aptInstall.FindAllStringSubmatch(a, -1) {
				for _, f := range strings.Fields(m[1]) {
					if strings.HasPrefix(f, "-") || f == "\\" {
						continue
					}
					name, version, _ := strings.Cut(f, "=")
					d.packages[name] = version
				}
			}
		}
	}
	return d
}

// envPairs reads an ENV instruction's arguments: "k=v k2=v2" (values
// unquoted or double-quoted, without spaces) or the legacy "k value".
func envPairs(a string) []string {
	f := strings.Fields(a)
	if len(f) == 0 || !strings.Contains(f[0], "=") {
		return []string{strings.Replace(a, " ", "=", 1)}
	}
	out := make([]string, len(f))
	for i, kv := range f {
		k, v, _ := strings.Cut(kv, "=")
		out[i] = k + "=" + strings.Trim(v, `"`)
	}
	return out
}
