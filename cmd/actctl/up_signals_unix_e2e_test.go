//go:build unix

package main

import (
	"errors"
	"os/exec"
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
