package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/testutil"
	"github.com/actctl/actctl/tasklog"
)

const logsConfig = `package actant
templates: worker: {
	backend:   "claude-code"
	archetype: "employee"
	schedule: heartbeat: {interval: "30m", prompt: "Check the issues."}
}
agents: w: template: "worker"
// actctl up (which logs -f needs) runs, but starts nothing here.
archetypes: employee: autoStart: false
`

// logsWorkspace applies an employee and returns the workspace, the home
// and the employee's logs directory (in its instance).
func logsWorkspace(t *testing.T) (dir, home, logs string) {
	t.Helper()
	dir, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, logsConfig)
	mustApply(t, dir, home)
	return dir, home, filepath.Join(home, "instances", "w", "logs")
}

var logsStart = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// logTask writes task id as up does: its messages, then its summary.
func logTask(t *testing.T, logs string, task tasklog.Task, end tasklog.Summary, msgs ...string) {
	t.Helper()
	w, err := tasklog.Begin(logs, task)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		w.Message([]byte(m))
	}
	if err := w.Finish(end); err != nil {
		t.Fatal(err)
	}
}

func logTwoTasks(t *testing.T, logs string) {
	t.Helper()
	logTask(t, logs, tasklog.Task{ID: 1, Kind: "heartbeat", Source: "heartbeat", Prompt: "Read .heartbeat\nthen act", Started: logsStart},
		tasklog.Summary{Time: logsStart.Add(2500 * time.Millisecond), StopReason: "end_turn"},
		msgChunk1, msgToolCall, msgToolDone, msgChunk2, msgEnd)
	logTask(t, logs, tasklog.Task{ID: 2, Kind: "cron", Source: "cron[0]", Prompt: "Post the standup", Started: logsStart.Add(time.Hour)},
		tasklog.Summary{Time: logsStart.Add(time.Hour + 300*time.Millisecond), Error: "agent exited"}, msgFailed)
}

func TestLogsE2E(t *testing.T) {
	dir, home, logs := logsWorkspace(t)
	utc := []string{"TZ=UTC"}
	r := actctlEnv(t, dir, home, utc, "logs", "w")
	if r.Code != 0 || r.Stdout != "" || r.Stderr != "no tasks logged for w yet (tasks are logged by actctl up)\n" {
		t.Errorf("no tasks: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	logTwoTasks(t, logs)

	r = actctlEnv(t, dir, home, utc, "logs", "w")
	want := "2026-11-22 09:00:02  #1    heartbeat        end_turn         2.5s  Read .heartbeat\n" +
		"2026-11-22 10:00:00  #2    cron(cron[0])    error: agent exited    300ms  Post the standup\n"
	if r.Code != 0 || r.Stdout != want || r.Stderr != "" {
		t.Errorf("logs: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", r.Code, r.Stderr, r.Stdout, want)
	}

	r = actctl(t, dir, home, "logs", "w", "-o", "json")
	var got []tasklog.Summary
	for _, l := range strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n") {
		var s tasklog.Summary
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("-o json line %q: %v", l, err)
		}
		got = append(got, s)
	}
	if r.Code != 0 || len(got) != 2 || got[0].Task != 1 || got[0].DurationMs != 2500 || got[0].Log != "tasks/20261122T090000Z-1.jsonl" ||
		got[1].Task != 2 || got[1].Error != "agent exited" || got[1].Prompt != "Post the standup" {
		t.Errorf("-o json: exit %d: %s", r.Code, r.Stdout)
	}

	r = actctl(t, dir, home, "logs", "w", "--task", "1")
	want = "Looking at \ntool Read README.md (read): pending\ntool Read README.md (read): completed\nthe issues.\nstop: end_turn\n"
	if r.Code != 0 || r.Stdout != want {
		t.Errorf("--task 1: exit %d, stderr %q, stdout:\n%q\nwant\n%q", r.Code, r.Stderr, r.Stdout, want)
	}
	r = actctl(t, dir, home, "logs", "--task", "1", "w", "-o", "json")
	if want := strings.Join([]string{msgChunk1, msgToolCall, msgToolDone, msgChunk2, msgEnd}, "\n") + "\n"; r.Code != 0 || r.Stdout != want {
		t.Errorf("--task 1 -o json: exit %d, stderr %q, stdout:\n%s", r.Code, r.Stderr, r.Stdout)
	}
}

// TestLogsBadInputE2E: each mistake is named, and nothing is written.
func TestLogsBadInputE2E(t *testing.T) {
	dir, home, logs := logsWorkspace(t)
	logTwoTasks(t, logs)
	before := slices.Concat(listFiles(t, dir), listFiles(t, home))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"logs", "x"}, 1, `actctl: unknown agent "x" (did you mean "w"?)`},
		{[]string{"logs", "w", "--task", "9"}, 1, "actctl: logs w: no task 9 in " + filepath.Join(logs, "tasks") + " (logged: tasks 1 to 2)"},
		{[]string{"logs", "w", "--task", "x"}, 2, `invalid value "x" for flag -task`},
		{[]string{"logs"}, 2, "logs: want exactly one AGENT"},
	} {
		r := actctl(t, dir, home, tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) || r.Stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, r.Code, r.Stdout, r.Stderr, tc.code, tc.want)
		}
	}
	if after := slices.Concat(listFiles(t, dir), listFiles(t, home)); !slices.Equal(before, after) {
		t.Errorf("files changed:\n%v\n%v", before, after)
	}
	// A malformed summary line is named; the others are still printed.
	f, err := os.OpenFile(filepath.Join(logs, "actctl.log"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{broken\n")
	f.Close()
	r := actctl(t, dir, home, "logs", "w")
	if r.Code != 1 || strings.Count(r.Stdout, "\n") != 2 || !strings.Contains(r.Stderr, filepath.Join(logs, "actctl.log")+":3: malformed task summary") {
		t.Errorf("malformed line: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}

// startLogs runs `actctl logs` in the background with its output in
// buffers the test waits on.
func startLogs(t *testing.T, dir, home string, args ...string) (*exec.Cmd, *testutil.Buffer, *testutil.Buffer) {
	t.Helper()
	cmd := exec.Command(actctlBin, append([]string{"logs"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "TZ=UTC")
	stdout, stderr := &testutil.Buffer{}, &testutil.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, stdout, stderr
}

// interrupt sends SIGINT and checks that the command exits 0.
func interrupt(t *testing.T, cmd *exec.Cmd, stderr *testutil.Buffer) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGINT: %v; stderr:\n%s", err, stderr)
	}
}

// TestLogsFollowE2E: -f started before any task prints the tasks that
// end afterwards, each when it ends, and SIGINT ends it with status 0.
func TestLogsFollowE2E(t *testing.T) {
	dir, home, logs := logsWorkspace(t)
	if r := actctl(t, dir, home, "logs", "w", "-f"); r.Code != 1 || !strings.Contains(r.Stderr, upNoUp) {
		t.Fatalf("logs -f without up: %d\n%s", r.Code, r.Stderr)
	}
	startUp(t, dir, home).waitLine("control socket")
	cmd, stdout, stderr := startLogs(t, dir, home, "w", "-f")
	if !stderr.WaitFor("no tasks logged for w yet") {
		t.Fatalf("no notice; stderr:\n%s", stderr)
	}
	logTask(t, logs, tasklog.Task{ID: 1, Kind: "prompt", Source: "cli", Prompt: "first", Started: logsStart},
		tasklog.Summary{Time: logsStart.Add(time.Second), StopReason: "end_turn"})
	if !stdout.WaitFor("  #1    prompt(cli)      end_turn           1s  first\n") {
		t.Fatalf("task 1 not followed; stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	logTask(t, logs, tasklog.Task{ID: 2, Kind: "prompt", Source: "cli", Prompt: "second", Started: logsStart.Add(time.Minute)},
		tasklog.Summary{Time: logsStart.Add(time.Minute + time.Second), StopReason: "cancelled"})
	if !stdout.WaitFor("  #2    prompt(cli)      cancelled          1s  second\n") {
		t.Fatalf("task 2 not followed; stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	interrupt(t, cmd, stderr)
}

// TestLogsFollowTaskE2E: --task ID -f prints the messages of a task still
// running as they are logged.
func TestLogsFollowTaskE2E(t *testing.T) {
	dir, home, logs := logsWorkspace(t)
	w, err := tasklog.Begin(logs, tasklog.Task{ID: 1, Kind: "heartbeat", Started: logsStart})
	if err != nil {
		t.Fatal(err)
	}
	w.Message([]byte(msgToolCall))
	startUp(t, dir, home).waitLine("control socket")
	cmd, stdout, stderr := startLogs(t, dir, home, "w", "--task", "1", "-f")
	if !stdout.WaitFor("tool Read README.md (read): pending\n") {
		t.Fatalf("logged message not printed; stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	w.Message([]byte(msgToolDone))
	if !stdout.WaitFor("tool Read README.md (read): completed\n") {
		t.Fatalf("appended message not printed; stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if err := w.Finish(tasklog.Summary{StopReason: "end_turn"}); err != nil {
		t.Fatal(err)
	}
	interrupt(t, cmd, stderr)
}
