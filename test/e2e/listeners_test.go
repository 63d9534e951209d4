package e2e

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/devstack"
)

// checkLoopbackOnly: every TCP listener of the stack's processes is on a
// loopback address, except mpirun's out-of-band listener, which OpenMPI
// 4.1 binds to all addresses whatever oob_tcp_if_include says (logged;
// docs/development.md says so).
func checkLoopbackOnly(t *testing.T, procs []devstack.Straggler) {
	t.Helper()
	sockets := tcpListeners()
	for _, p := range procs {
		for _, addr := range processListeners(p.PID, sockets) {
			if addr.IP.IsLoopback() {
				continue
			}
			name := strings.Fields(p.Cmdline + " ?")[0]
			if filepath.Base(name) == "mpirun" {
				t.Logf("mpirun (pid %d) listens on %s: OpenMPI's out-of-band listener, which it binds to all addresses", p.PID, addr)
				continue
			}
			t.Errorf("%s listens on %s, not on loopback", p, addr)
		}
	}
}

// tcpListeners maps the socket inodes of listening TCP sockets to their
// addresses, from /proc/net/tcp and tcp6.
func tcpListeners() map[string]*net.TCPAddr {
	out := map[string]*net.TCPAddr{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 10 || fs[3] != "0A" { // 0A: LISTEN
				continue
			}
			if a := parseProcAddr(fs[1]); a != nil {
				out[fs[9]] = a
			}
		}
	}
	return out
}

// parseProcAddr decodes /proc/net/tcp's "0100007F:1F90": the address in
// 32-bit words of host (little-endian) order, then the port.
func parseProcAddr(s string) *net.TCPAddr {
	ipHex, portHex, ok := strings.Cut(s, ":")
	raw, err := hex.DecodeString(ipHex)
	port, perr := strconv.ParseUint(portHex, 16, 16)
	if !ok || err != nil || perr != nil || len(raw)%4 != 0 {
		return nil
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		ip[i], ip[i+1], ip[i+2], ip[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	return &net.TCPAddr{IP: ip, Port: int(port)}
}

// processListeners are the listening addresses among pid's open sockets.
func processListeners(pid int, sockets map[string]*net.TCPAddr) []*net.TCPAddr {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	var out []*net.TCPAddr
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			if a := sockets[strings.TrimSuffix(inode, "]")]; a != nil {
				out = append(out, a)
			}
		}
	}
	return out
}

func TestParseProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000:0050":                         "0.0.0.0:80",
		"00000000000000000000000001000000:0050": "[::1]:80",
	} {
		if got := parseProcAddr(in); got == nil || got.String() != want {
			t.Errorf("parseProcAddr(%s) = %v, want %s", in, got, want)
		}
	}
}
