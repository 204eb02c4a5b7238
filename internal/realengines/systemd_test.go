//go:build linux

package realengines

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// systemdBin is the user manager Debian's systemd package installs.
const systemdBin = "/lib/systemd/systemd"

// userManager is a systemd user manager in a private mount namespace.
type userManager struct {
	cmd  *exec.Cmd
	env  []string // the manager's whole environment, and systemctl's
	done chan struct{}
}

// startUserManager starts `systemd --user` in a private mount namespace
// with a tmpfs on /run (holding /run/systemd/system, so it believes
// systemd booted) and its runtime, home and config directories under
// scratch; it is stopped when the test ends.
func startUserManager(t *testing.T, ctx context.Context, scratch string) *userManager {
	t.Helper()
	if os.Getuid() != 0 {
		// Not a missing tool: an unprivileged CI skips it too, saying so.
		t.Skipf("a private mount namespace needs root (uid %d)", os.Getuid())
	}
	unshare := tool(t, "unshare")
	tool(t, "nsenter")
	tool(t, "systemctl")
	if !isExec(systemdBin) {
		missing(t, "%s is missing (Debian's systemd package)", systemdBin)
	}
	home := filepath.Join(scratch, "home")
	runtime := filepath.Join(scratch, "xdg-run")
	for _, d := range []string{home, runtime} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	m := &userManager{done: make(chan struct{}), env: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_RUNTIME_DIR=" + runtime,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "LANG=C.UTF-8",
	}}
	m.cmd = exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system && exec `+systemdBin+` --user`)
	m.cmd.Env = m.env
	var log bytes.Buffer
	m.cmd.Stdout, m.cmd.Stderr = &log, &log
	if err := m.cmd.Start(); err != nil {
		missing(t, "unshare -m: %v", err)
	}
	go func() { m.cmd.Wait(); close(m.done) }()
	t.Cleanup(func() { m.stop(t, &log) })
	ready := make(chan error, 1)
	go func() { ready <- awaitPath(ctx, filepath.Join(runtime, "systemd", "private")) }()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("the user manager's socket did not come: %v\n%s", err, log.String())
		}
	case <-m.done:
		missing(t, "systemd --user in a private mount namespace did not start: %v\n%s", m.cmd.ProcessState, log.String())
	}
	// is-system-running --wait returns once start-up is complete.
	if out, _ := m.systemctlErr(ctx, "is-system-running", "--wait"); !strings.Contains(out, "running") && !strings.Contains(out, "degraded") {
		t.Fatalf("the user manager is not running: %s\n%s", out, log.String())
	}
	return m
}

// stop stops the manager (SIGTERM: it stops its units and exits), killing
// it if it does not end within the guard.
func (m *userManager) stop(t *testing.T, log *bytes.Buffer) {
	m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-contextDone(guard):
		m.cmd.Process.Kill()
		<-m.done
		t.Errorf("the user manager did not stop on SIGTERM\n%s", log.String())
	}
}

// systemctl runs `systemctl --user` in the manager's mount namespace.
func (m *userManager) systemctl(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	out, err := m.systemctlErr(ctx, args...)
	if err != nil {
		t.Fatalf("systemctl --user %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (m *userManager) systemctlErr(ctx context.Context, args ...string) (string, error) {
	ns := []string{"-t", strconv.Itoa(m.cmd.Process.Pid), "-m", "--", "systemctl", "--user", "--no-pager"}
	return runErr(ctx, "", m.env, "nsenter", append(ns, args...)...)
}

// show is one property of a unit.
func (m *userManager) show(t *testing.T, ctx context.Context, unit, prop string) string {
	t.Helper()
	return strings.TrimSpace(m.systemctl(t, ctx, "show", "-p", prop, "--value", unit))
}

// contextDone is a channel closed after d (a failure guard).
func contextDone(d time.Duration) <-chan struct{} {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	context.AfterFunc(ctx, cancel)
	return ctx.Done()
}

// TestSystemdUserUnit runs the unit `actctl apply` renders for a
// workspace on a real systemd user manager: linked and started as
// docs/deploy.md says, `actctl up` runs (its control socket answers
// `actctl status`) with the variables of the environment file the docs
// name, and a `kill -9` of it is restarted by systemd.
func TestSystemdUserUnit(t *testing.T) {
	requireTier(t)
	ctx, cancel := context.WithTimeout(t.Context(), guard)
	defer cancel()
	scratch := t.TempDir()
	m := startUserManager(t, ctx, scratch)
	bin := actctlBin(t)
	home := filepath.Join(scratch, "home")
	ws := filepath.Join(scratch, "ws")
	writeFile(t, ws, "actant.cue", "package actant\n\n"+scriptedBackend(t)+`
deploy: systemd: {}
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "hello"}}
agents: triage: template: "emp"
`)
	// The unit runs `actctl` from PATH, which it sets to hold ~/go/bin.
	writeFile(t, home, "go/bin/.keep", "")
	if err := os.Link(bin, filepath.Join(home, "go", "bin", "actctl")); err != nil {
		copyFile(t, bin, filepath.Join(home, "go", "bin", "actctl"))
	}
	run(t, ctx, ws, m.env, bin, "apply")
	units, _ := filepath.Glob(filepath.Join(ws, "deploy", "systemd", "*@.service"))
	if len(units) != 1 {
		t.Fatalf("apply rendered %d template units: %v", len(units), units)
	}
	instance := strings.TrimSpace(run(t, ctx, "", m.env, "systemd-escape", "--path", ws))
	unit := strings.TrimSuffix(filepath.Base(units[0]), "@.service") + "@" + instance + ".service"
	m.systemctl(t, ctx, "link", units[0])

	// The environment file, where the loaded unit says it is.
	envFile := strings.Fields(m.show(t, ctx, unit, "EnvironmentFiles"))
	if len(envFile) == 0 {
		t.Fatalf("%s names no EnvironmentFile", unit)
	}
	t.Logf("%s reads %s", unit, envFile[0])
	if !strings.HasPrefix(envFile[0], filepath.Join(home, ".config")+"/") {
		t.Errorf("the environment file %s is not under $XDG_CONFIG_HOME (%s/.config)", envFile[0], home)
	}
	const mark = "ACTCTL_REAL_ENGINES_MARK=from-the-environment-file"
	writeFile(t, "/", envFile[0], mark+"\n")

	sock := filepath.Join(ws, ".actant", "run", "up.sock")
	m.systemctl(t, ctx, "enable", "--now", unit)
	t.Cleanup(func() { m.systemctlErr(context.Background(), "stop", unit) })
	if err := awaitPath(ctx, sock); err != nil {
		t.Fatalf("actctl up's control socket: %v\n%s", err, m.systemctl(t, ctx, "status", unit))
	}
	run(t, ctx, ws, m.env, bin, "status")
	pid := m.show(t, ctx, unit, "MainPID")
	environ, err := os.ReadFile("/proc/" + pid + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(environ, []byte("\x00"+mark+"\x00")) && !bytes.HasPrefix(environ, []byte(mark+"\x00")) {
		t.Errorf("actctl up (pid %s) lacks %s from %s", pid, mark, envFile[0])
	}

	// kill -9: systemd restarts it, and the new up listens again.
	created := watchCreate(t, ctx, filepath.Dir(sock), filepath.Base(sock))
	n, _ := strconv.Atoi(pid)
	if err := syscall.Kill(n, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	created()
	if got := m.show(t, ctx, unit, "NRestarts"); got != "1" {
		t.Errorf("NRestarts %s after kill -9, want 1", got)
	}
	if again := m.show(t, ctx, unit, "MainPID"); again == pid || again == "0" {
		t.Errorf("MainPID %s after the restart (was %s)", again, pid)
	}
	run(t, ctx, ws, m.env, bin, "status")
	m.systemctl(t, ctx, "stop", unit)
	if state := m.show(t, ctx, unit, "ActiveState"); state != "inactive" {
		t.Errorf("after stop: %s", state)
	}
}

// copyFile copies an executable.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
