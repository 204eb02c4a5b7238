package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/actctl/actctl/tasklog"
)

// TestShutdownStubbornTurn: with an agent that ignores session/cancel,
// up's SIGTERM ends the running prompt's turn (cancelled, then its
// process killed at the grace) and drops the prompt queued behind it;
// each says so, not "actctl up went away before it answered", and the
// dropped task is logged as dropped at shutdown (issue 30 item 14).
func TestShutdownStubbornTurn(t *testing.T) {
	root, home := livenessWorkspace(t, "")
	// The default grace: the turn's end (cancelled, killed at the grace)
	// came after the control socket's write grace, so both prompts lost
	// their answer.
	p := startUp(t, root, home, "--grace", "5s", "triage")
	p.started("triage")
	running := startBgPrompt(t, root, home, "triage", "-p", "stubborn")
	running.waitFor(t, "streaming pid=")
	queued := startBgPrompt(t, root, home, "triage", "-p", "hello")
	awaitPrompts(t, root, 2) // queued behind the running one
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	const cancelled = "actctl up is shutting down: the turn was cancelled"
	if code := running.wait(t); code != 1 || !strings.Contains(running.stderr.String(), cancelled) {
		t.Errorf("running prompt: exit %d, want 1 and %q:\n%s", code, cancelled, running.stderr.String())
	}
	const dropped = "actctl up is shutting down: the task did not run"
	if code := queued.wait(t); code != 1 || !strings.Contains(queued.stderr.String(), dropped) {
		t.Errorf("queued prompt: exit %d, want 1 and %q:\n%s", code, dropped, queued.stderr.String())
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("up: %v\n%s", err, p.stderr())
	}
	sums, err := tasklog.Summaries(filepath.Join(home, "instances", "triage", "logs"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sums {
		got = append(got, s.Prompt+": "+s.Error)
	}
	if len(sums) != 2 || !strings.Contains(got[0], cancelled) || !strings.Contains(got[1], dropped) {
		t.Errorf("task log summaries %q, want the cancelled turn and the dropped task", got)
	}
}

// livenessWorkspace declares the employee triage on the scripted test
// agent (its template's extra fields in fields), whose hook on
// user:prompt counts the prompts queued in prompted/ (awaitPrompts).
func livenessWorkspace(t *testing.T, fields string) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}`+fields+`}
agents: triage: template: "emp"
hooks: counted: {on: "user:prompt", run: {command: "sh", args: ["-c", "mkdir -p prompted && touch prompted/$$"]}}
`)
	return root, home
}

// awaitPrompts waits (fsnotify, no polling) until n prompts were queued
// (livenessWorkspace's hook).
func awaitPrompts(t *testing.T, root string, n int) {
	t.Helper()
	dir := filepath.Join(root, "prompted")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a bound on a hang
	defer cancel()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	for {
		if es, _ := os.ReadDir(dir); len(es) >= n {
			return
		}
		select {
		case <-w.Events:
		case <-ctx.Done():
			t.Fatalf("fewer than %d prompts queued", n)
		}
	}
}
