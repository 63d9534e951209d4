package devstack

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// sysctls the cluster needs: routing between the bridge's pods and
// Service addresses (ip_forward) and bridged traffic through kube-proxy's
// rules. Their values before up are kept in network.json and restored by
// down, so the machine is left as it was.
var clusterSysctls = []string{"net/ipv4/ip_forward", "net/bridge/bridge-nf-call-iptables"}

type netState struct {
	Sysctls map[string]string `json:"sysctls"`
}

// networkUp creates the bridge with the node's address and sets the
// sysctls, recording their old values (once: a restart keeps the first).
func networkUp(p paths) error {
	var st netState
	if err := readJSON(p.netState(), &st); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		st.Sysctls = map[string]string{}
		for _, k := range clusterSysctls {
			if b, err := os.ReadFile("/proc/sys/" + k); err == nil {
				st.Sysctls[k] = strings.TrimSpace(string(b))
			}
		}
		if err := writeJSON(p.netState(), st, 0o644); err != nil {
			return err
		}
	}
	for _, k := range clusterSysctls {
		if err := os.WriteFile("/proc/sys/"+k, []byte("1"), 0o644); err != nil && k == "net/ipv4/ip_forward" {
			return fmt.Errorf("sysctl %s: %w", k, err)
		}
	}
	if _, err := os.Stat("/sys/class/net/" + bridgeName); err != nil {
		if err := run("ip", "link", "add", bridgeName, "type", "bridge"); err != nil {
			return err
		}
	}
	if out, _ := exec.Command("ip", "-o", "addr", "show", "dev", bridgeName).Output(); !bytes.Contains(out, []byte(nodeIP+"/")) {
		if err := run("ip", "addr", "add", nodeIP+"/24", "dev", bridgeName); err != nil {
			return err
		}
	}
	if err := run("ip", "link", "set", bridgeName, "up"); err != nil {
		return err
	}
	// Service addresses exist only in kube-proxy's rules. Until they are
	// written (or for an address no Service has) a connection from this
	// machine would follow the default route out of it, and whatever
	// answers there answers for MinIO: route them to the bridge instead,
	// where nothing answers. Deleting the bridge deletes the route.
	return run("ip", "route", "replace", serviceCIDR, "dev", bridgeName)
}

// networkDown removes what networkUp and the cluster's components made:
// kube-proxy's and the kubelet's iptables chains, the bridge, and the
// sysctls' old values. It does what it can and reports every failure.
func networkDown(p paths, kubeProxy string) error {
	var errs []error
	if kubeProxy != "" {
		if out, err := exec.Command(kubeProxy, "--cleanup").CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("kube-proxy --cleanup: %w: %s", err, lastLine(out)))
		}
	}
	for _, ipt := range []string{"iptables", "ip6tables"} {
		if err := dropKubeChains(ipt); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := os.Stat("/sys/class/net/" + bridgeName); err == nil {
		if err := run("ip", "link", "del", bridgeName); err != nil {
			errs = append(errs, err)
		}
	}
	var st netState
	if err := readJSON(p.netState(), &st); err == nil {
		for k, v := range st.Sysctls {
			if err := os.WriteFile("/proc/sys/"+k, []byte(v), 0o644); err != nil {
				errs = append(errs, fmt.Errorf("restoring sysctl %s=%s: %w", k, v, err))
			}
		}
		if len(errs) == 0 {
			_ = os.Remove(p.netState())
		}
	}
	return errors.Join(errs...)
}

// dropKubeChains deletes the KUBE-* chains the kubelet and kube-proxy
// leave in every table, and the rules that jump to them: each table is
// saved, its KUBE- lines dropped, and the rest restored in one
// transaction, so the machine's other rules stay as they were.
func dropKubeChains(ipt string) error {
	if _, err := exec.LookPath(ipt + "-save"); err != nil {
		return nil
	}
	var errs []error
	for _, table := range []string{"filter", "nat", "mangle"} {
		out, err := exec.Command(ipt+"-save", "-t", table).Output()
		if err != nil || !bytes.Contains(out, []byte("KUBE-")) {
			continue // a table this kernel lacks, or nothing of ours
		}
		var kept bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if !strings.Contains(sc.Text(), "KUBE-") {
				kept.WriteString(sc.Text() + "\n")
			}
		}
		cmd := exec.Command(ipt+"-restore", "-w")
		cmd.Stdin = &kept
		if b, err := cmd.CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("%s-restore of table %s without KUBE- chains: %w: %s", ipt, table, err, lastLine(b)))
		}
	}
	return errors.Join(errs...)
}

// cgroupsUp creates the kubelet's cgroup root in every v1 hierarchy.
func cgroupsUp() error {
	for _, h := range cgroupHierarchies() {
		if err := os.MkdirAll(filepath.Join(h, cgroupRoot), 0o755); err != nil {
			return fmt.Errorf("cgroup %s: %w", h, err)
		}
	}
	return nil
}

// cgroupsDown removes the cgroup root and everything the kubelet made
// under it, deepest first (a cgroup with processes left refuses).
func cgroupsDown() error {
	var errs []error
	for _, h := range cgroupHierarchies() {
		var dirs []string
		_ = filepath.WalkDir(filepath.Join(h, cgroupRoot), func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
		for _, d := range dirs {
			if err := unix.Rmdir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("cgroup %s: %w", d, err))
			}
		}
	}
	return errors.Join(errs...)
}

func cgroupHierarchies() []string {
	var out []string
	for _, m := range mounts() {
		if m.fstype == "cgroup" || m.fstype == "cgroup2" {
			out = append(out, m.point)
		}
	}
	return out
}

type mount struct{ point, fstype string }

// mounts lists this machine's mounts (mountinfo: field 5 is the mount
// point, the type follows the " - " separator).
func mounts() []mount {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var out []mount
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 1 {
			continue
		}
		out = append(out, mount{point: unescapeMount(f[4]), fstype: g[0]})
	}
	return out
}

func unescapeMount(s string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(s)
}

// mountsUnder lists mount points under dir, deepest first.
func mountsUnder(dir string) []string {
	var out []string
	for _, m := range mounts() {
		if m.point == dir || strings.HasPrefix(m.point, dir+"/") {
			out = append(out, m.point)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}

// unmountUnder detaches every mount under dir (containers' root
// filesystems, pod volumes) that a crashed stack left.
func unmountUnder(dir string) error {
	var errs []error
	for _, m := range mountsUnder(dir) {
		if err := unix.Unmount(m, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
			errs = append(errs, fmt.Errorf("unmounting %s: %w", m, err))
		}
	}
	return errors.Join(errs...)
}

func run(name string, args ...string) error { return runCtx(context.Background(), name, args...) }

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// runCtx runs a command bounded by ctx, with its output in the error.
func runCtx(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, lastLine(out))
	}
	return nil
}

// execOutput runs a command bounded by ctx and returns its stdout.
func execOutput(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return string(out), nil
}
