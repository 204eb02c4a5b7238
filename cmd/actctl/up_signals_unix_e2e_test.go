//go:build unix

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUpStopsOnHangup: closing up's terminal (SIGHUP) stops it as
// Ctrl-C does: every agent gets its graceful stop (process:stop), up
// says why and exits 0, and no agent outlives it (issue #26 item 4).
func TestUpStopsOnHangup(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api")
	pid := p.started("api")
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`up: SIGHUP received: stopping every agent`)
	p.waitLine(`up: api: process:stop pid \d+`)
	p.waitLine(`up: stopped$`)
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up after SIGHUP: %v\n%s", err, p.stderr())
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("agent pid %d after up's SIGHUP: %v, want it gone", pid, err)
	}
}

// TestUpSecondSignalForces: a second signal during a slow stop (an
// agent deaf to SIGTERM, a grace of an hour) kills every agent's process
// group at once; up says so and exits 128+n.
func TestUpSecondSignalForces(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "--grace", "1h", "api")
	pid := p.started("api")
	if r := actctl(t, root, home, "prompt", "api", "-p", "deaf-to-term"); r.Code != 0 || !strings.Contains(r.Stdout, "deaf to SIGTERM") {
		t.Fatalf("prompt: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`up: stopping$`)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`up: SIGTERM received again: killing every agent's process group now`)
	p.waitLine(`up: api: process:stop pid \d+`)
	p.waitLine(`up: stopped at once`)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
			t.Errorf("up after a second signal: %v, want exit %d\n%s", err, 128+int(syscall.SIGTERM), p.stderr())
		}
	case <-time.After(60 * time.Second): // a bound on a hang, not a wait
		t.Fatalf("up did not exit after the second signal\n%s", p.stderr())
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("agent pid %d after up: %v, want it gone", pid, err)
	}
	if s := p.stderr(); !strings.Contains(s, "up: SIGINT received: stopping every agent (send it again to kill them at once)") {
		t.Errorf("up did not say what the first signal does:\n%s", s)
	}
}

// TestUpStopsWhenStderrGoes: when the reader of up's stderr goes away
// (`actctl up 2>&1 | head`), up is not killed by SIGPIPE, leaving its
// socket behind: it stops as on SIGHUP, every agent gracefully.
func TestUpStopsWhenStderrGoes(t *testing.T) {
	root, home := upWorkspace(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(actctlBin, "up", "--grace", "2s", "api")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	sc := bufio.NewScanner(r)
	rx := regexp.MustCompile(`up: api: process:start pid (\d+)`)
	var pid int
	for pid == 0 && sc.Scan() {
		if m := rx.FindStringSubmatch(sc.Text()); m != nil {
			pid, _ = strconv.Atoi(m[1])
		}
	}
	if pid == 0 {
		t.Fatalf("up ended before api started: %v", sc.Err())
	}
	r.Close() // the reader goes away; up's next line finds no one
	// stop makes up log (unless a line of its own came first and up is
	// already stopping).
	if res := actctl(t, root, home, "stop", "api"); res.Code != 0 && !strings.Contains(res.Stderr, "shutting down") && !strings.Contains(res.Stderr, "no actctl up is running") {
		t.Fatalf("stop: %+v", res)
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("up was killed by %v", ws.Signal())
	}
	if err != nil {
		t.Fatalf("up after its stderr went: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("agent pid %d after up: %v, want it gone", pid, err)
	}
	if res := actctl(t, root, home, "status", "api"); !strings.Contains(res.Stdout+res.Stderr, "stopped") && !strings.Contains(res.Stdout+res.Stderr, "no actctl up") {
		t.Errorf("status after up: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(root, ".actant", "run", "up.sock")); !os.IsNotExist(err) {
		t.Errorf("up.sock left behind: %v", err)
	}
}
