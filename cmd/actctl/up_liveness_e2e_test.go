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

// TestUpTurnDeadlineAndRestart: through the binary, an employee's turn
// that never ends (the agent never answers and ignores session/cancel) is
// reported stalled after stallAfter and ended at turnTimeout (here 1s and
// 2s): the prompt fails saying so, the process is ended and restarted
// (on-failure, the default), and the next prompt runs. A killed backend
// is restarted too, and its next task runs. On the old code the prompt
// waited forever and a killed employee stayed crashed (issue 32 items 1
// and 2).
func TestUpTurnDeadlineAndRestart(t *testing.T) {
	root, home := livenessWorkspace(t, `, turnTimeout: "2s", stallAfter: "1s"`)
	p := startUp(t, root, home, "triage")
	first := p.started("triage")
	stuck := startBgPrompt(t, root, home, "triage", "-p", "silent")
	p.waitLine(`triage: task 1 stalled: no update from the agent`)
	p.waitLine(`triage: task 1: the turn did not end within 2s \(turnTimeout\): cancelling it`)
	const want = "ended by its deadline: the turn did not end within 2s (turnTimeout)"
	if code := stuck.wait(t); code != 1 || !strings.Contains(stuck.stderr.String(), want) {
		t.Errorf("the stuck prompt: exit %d, want 1 and %q:\n%s", code, want, stuck.stderr.String())
	}
	p.waitLine(`triage: process:crash \(backoff\)`)
	second := p.started("triage")
	if second == first {
		t.Fatalf("restarted with the same pid %d", first)
	}
	if r := actctl(t, root, home, "prompt", "triage", "-p", "hello"); r.Code != 0 {
		t.Fatalf("prompt after the restart: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if err := killProcess(second); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`triage: process:crash \(backoff\)`)
	third := p.started("triage")
	if r := actctl(t, root, home, "prompt", "triage", "-p", "hello"); r.Code != 0 || third == second {
		t.Fatalf("prompt after the killed backend's restart (pid %d): exit %d\n%s%s", third, r.Code, r.Stdout, r.Stderr)
	}
	st := upStatus(t, root, home)["triage"]
	if st.Process == nil || st.Process.Up == nil || st.Process.Up.Restarts != 2 {
		t.Errorf("status %+v, want 2 restarts", st.Process)
	}
}
