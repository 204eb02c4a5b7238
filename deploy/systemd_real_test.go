//go:build linux

package deploy

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// userManager is a real systemd user manager, started by the test in a
// private mount namespace (a tmpfs on /run, where /run/systemd/system
// says systemd runs) with its configuration and runtime directories in
// the test's own; nsenter runs systemctl beside it.
type userManager struct {
	t               *testing.T
	cmd             *exec.Cmd
	env             []string
	cfgHome, home   string
	nsenter, sysctl string
}

// startUserManager starts the manager and waits for its READY=1 on a
// notify socket of the test's; skipped where it cannot run (not root, no
// systemd, no unshare or nsenter).
func startUserManager(t *testing.T) *userManager {
	t.Helper()
	const systemd = "/lib/systemd/systemd"
	if os.Geteuid() != 0 || !fileExists(systemd) {
		t.Skip("a systemd user manager in a private mount namespace needs root and " + systemd)
	}
	unshare := tool(t, "unshare", false)
	m := &userManager{t: t, nsenter: tool(t, "nsenter", false), sysctl: tool(t, "systemctl", false)}
	dir := t.TempDir()
	m.cfgHome, m.home = filepath.Join(dir, "config"), filepath.Join(dir, "home")
	rt := filepath.Join(dir, "runtime")
	for _, d := range []string{m.cfgHome, m.home, rt} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	notify := filepath.Join(dir, "notify")
	ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: notify, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	m.env = append(os.Environ(), "HOME="+m.home, "XDG_CONFIG_HOME="+m.cfgHome, "XDG_RUNTIME_DIR="+rt)
	m.cmd = exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c",
		"mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system && exec "+systemd+" --user")
	m.cmd.Env = append(m.env, "NOTIFY_SOCKET="+notify)
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- m.cmd.Wait(); ln.Close() }()
	t.Cleanup(func() {
		m.cmd.Process.Signal(syscall.SIGTERM)
		<-exited
	})
	buf := make([]byte, 4096)
	for {
		n, _, err := ln.ReadFromUnix(buf)
		if err != nil {
			t.Fatalf("the user manager ended before it was ready: %v", err)
		}
		if strings.Contains("\n"+string(buf[:n])+"\n", "\nREADY=1\n") {
			return m
		}
	}
}

// systemctl runs `systemctl --user args` in the manager's namespace.
func (m *userManager) systemctl(args ...string) string {
	m.t.Helper()
	cmd := exec.Command(m.nsenter, append([]string{"-t", strconv.Itoa(m.cmd.Process.Pid), "-m", m.sysctl, "--user"}, args...)...)
	cmd.Env = m.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		m.t.Fatalf("systemctl --user %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestSystemdLoadsTheSecretsFile runs the rendered unit under a real
// systemd user manager for workspaces whose paths hold "-", spaces and
// non-ASCII letters: the file docs/deploy.md tells the user to create
// (~/.config/actctl/<the workspace's path>.env) is the one systemd loads,
// and actctl gets the path back whole (a stub actctl reports both).
func TestSystemdLoadsTheSecretsFile(t *testing.T) {
	escape := tool(t, "systemd-escape", false)
	m := startUserManager(t)
	unitDir := filepath.Join(m.cfgHome, "systemd", "user")
	if err := os.MkdirAll(unitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(unitDir, UnitName), renderTeam(t)[2].Files[0].Content, 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(m.home, "report")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	stub := "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$ANTHROPIC_API_KEY\" \"$1\" \"$2\" > " + fifo + "\n"
	if err := os.MkdirAll(filepath.Join(m.home, "go", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.home, "go", "bin", "actctl"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	m.systemctl("daemon-reload")
	for i, ws := range []string{"/srv/my-agents", "/srv/my agents/x", "/srv/agénts-ü"} {
		inst, err := exec.Command(escape, "--path", ws).Output()
		if err != nil {
			t.Fatal(err)
		}
		key := "key-" + strconv.Itoa(i)
		env := filepath.Join(m.cfgHome, "actctl", ws+".env") // docs/deploy.md, "systemd"
		if err := os.MkdirAll(filepath.Dir(env), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(env, []byte("ANTHROPIC_API_KEY="+key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		unit := "actctl-up@" + strings.TrimSpace(string(inst)) + ".service"
		m.systemctl("start", unit)
		got := readReport(t, fifo)
		if want := key + "|-C|" + ws; got != want {
			t.Errorf("%s: the stub actctl got %q, want %q (%s)", ws, got, want, m.systemctl("show", "-p", "EnvironmentFiles", unit))
		}
		m.systemctl("stop", unit)
	}
}

// readReport reads one line the stub writes to fifo; a stub that never
// runs fails the test after a minute rather than hanging it.
func readReport(t *testing.T, fifo string) string {
	t.Helper()
	line := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			line <- err.Error()
			return
		}
		defer f.Close()
		s, _ := bufio.NewReader(f).ReadString('\n')
		line <- strings.TrimSuffix(s, "\n")
	}()
	select {
	case s := <-line:
		return s
	case <-time.After(time.Minute):
		t.Fatal("the unit's actctl never ran")
		return ""
	}
}
