package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/tasklog"
)

// forgeTargets are the records of the instance inst an agent would forge
// (its task logs and their summaries, its proxy log, its runtime record
// and lock, its canvas, in any letter case); last, its .heartbeat, which
// it owns.
func forgeTargets(inst string) (records []string, heartbeat string) {
	for _, rel := range []string{"logs/actctl.log", "logs/tasks/forged.jsonl", "logs/proxy.log", "logs/new/x.jsonl",
		".actant.json", ".actant.json.lock", "canvas.html", "Logs/x", "CANVAS.HTML"} {
		records = append(records, filepath.Join(inst, rel))
	}
	return records, filepath.Join(inst, ".heartbeat")
}

// assertRecordsRefused checks the agent's answer (out) refused every
// record with the path named, wrote none and took .heartbeat.
func assertRecordsRefused(t *testing.T, how, out string, records []string, heartbeat string) {
	t.Helper()
	for _, p := range records {
		if want := "write " + p + ": error: " + p + ": actctl's client never writes there (under any preset): "; !strings.Contains(out, want) {
			t.Errorf("%s: %s not refused:\n%s", how, p, out)
		}
		if b, _ := os.ReadFile(p); string(b) == "FORGED" {
			t.Errorf("%s: %s written", how, p)
		}
	}
	if !strings.Contains(out, "write "+heartbeat+": ok") {
		t.Errorf("%s: the agent's own .heartbeat refused:\n%s", how, out)
	}
	inst := filepath.Dir(heartbeat)
	assertNotWritten(t, inst, "an instance record", "logs/tasks/forged.jsonl", "logs/new", "Logs", "canvas.html", "CANVAS.HTML")
	assertNoTemps(t, inst)
}

// TestConfineInstanceRecordsE2E: an agent whose workspace is an instance
// writes none of the records actctl keeps there (logs/, .actant.json*,
// canvas.html) through its client, under the standard preset, in `run`
// (an employee whose session cwd is the project, a repo agent whose
// session cwd is the instance) and in a task of `up`; `actctl logs` still
// shows the history actctl wrote. Its .heartbeat it may write (issue #30
// item 5).
func TestConfineInstanceRecordsE2E(t *testing.T) {
	root, home := runWorkspace(t)
	mustApply(t, root, home)
	start := logsStart
	for _, agent := range []string{"worker", "builder"} {
		inst := filepath.Join(home, "instances", agent)
		logTask(t, filepath.Join(inst, "logs"), tasklog.Task{ID: 1, Kind: "heartbeat", Source: "heartbeat", Prompt: "the real task", Started: start},
			tasklog.Summary{Time: start, StopReason: "end_turn"}, msgChunk1, msgEnd)
		records, heartbeat := forgeTargets(inst)
		r := actctl(t, root, home, "run", agent, "-p", "write-all FORGED "+strings.Join(append(records, heartbeat), " "))
		assertRecordsRefused(t, "run "+agent, r.Stdout, records, heartbeat)
		if r := actctlEnv(t, root, home, []string{"TZ=UTC"}, "logs", agent); !strings.Contains(r.Stdout, "the real task") || strings.Contains(r.Stdout, "FORGED") {
			t.Errorf("logs %s after the run:\n%s%s", agent, r.Stdout, r.Stderr)
		}
	}

	p := startUp(t, root, home, "worker")
	p.started("worker")
	records, heartbeat := forgeTargets(filepath.Join(home, "instances", "worker"))
	r := actctl(t, root, home, "prompt", "worker", "-p", "write-all FORGED "+strings.Join(append(records, heartbeat), " "))
	assertRecordsRefused(t, "up's task", r.Stdout, records, heartbeat)
	sums, err := tasklog.Summaries(filepath.Join(home, "instances", "worker", "logs"))
	if err != nil || len(sums) != 2 || sums[0].Prompt != "the real task" {
		t.Errorf("task summaries after up's task: %+v %v", sums, err)
	}
	p.stop()
}

// TestRunProtectedCwdE2E: `run --cwd` into a directory no agent may write
// (.git, .actant, also through a symlink) is refused with the reason
// before anything is materialized there, as run_agent's cwd is: the
// session cwd is a root of the client (issue #30 item 13).
func TestRunProtectedCwdE2E(t *testing.T) {
	root, home := runWorkspace(t)
	writeFiles(t, root, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "sub/.git/config": "[core]\n"})
	if r := actctl(t, root, home, "run", "helper", "-p", "hello"); r.Code != 0 {
		t.Fatalf("run: %d %s", r.Code, r.Stderr)
	}
	if err := os.Symlink(".git", filepath.Join(root, "gitlink")); err != nil {
		t.Fatal(err)
	}
	list := func() string {
		var names []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			names = append(names, p)
			return nil
		})
		return strings.Join(names, "\n")
	}
	before := list()
	for _, cwd := range []string{".git", "gitlink", ".actant", "sub/.git"} {
		for _, agent := range []string{"helper", "worker"} {
			r := actctl(t, root, home, "run", agent, "--cwd", filepath.Join(root, cwd), "-p", "write-all x "+filepath.Join(root, cwd, "planted"))
			if r.Code != 1 || !strings.Contains(r.Stderr, "cannot be an agent's session cwd: it is inside .") || strings.Contains(r.Stdout, "write ") {
				t.Errorf("run %s --cwd %s: exit %d\n%s%s", agent, cwd, r.Code, r.Stdout, r.Stderr)
			}
		}
	}
	if after := list(); after != before {
		t.Errorf("files changed:\n%s\nwere:\n%s", after, before)
	}
}
