package main

import (
	"bytes"
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
	"github.com/actctl/actctl/watch"
)

// watcher runs `actctl apply --watch` in the background.
type watcher struct {
	cmd            *exec.Cmd
	stdout, stderr *testutil.Buffer
}

func startWatch(t *testing.T, dir, home string, args ...string) *watcher {
	t.Helper()
	w := &watcher{stdout: &testutil.Buffer{}, stderr: &testutil.Buffer{}}
	w.cmd = exec.Command(actctlBin, append([]string{"apply", "--watch"}, args...)...)
	w.cmd.Dir = dir
	w.cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
	w.cmd.Stdout, w.cmd.Stderr = w.stdout, w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.cmd.Process.Kill(); w.cmd.Wait() })
	return w
}

// watchCycle is one cycle `apply --watch -o json` printed.
type watchCycle struct {
	Kind    string   `json:"kind"`
	Initial bool     `json:"initial"`
	Trigger []string `json:"trigger"`
	Error   string   `json:"error"`
	Summary string   `json:"summary"`
}

// cycles decodes the cycles printed so far (with -o json), a line still
// being written left out.
func (w *watcher) cycles(t *testing.T) []watchCycle {
	t.Helper()
	var out []watchCycle
	for line := range strings.Lines(w.stdout.String()) {
		if !strings.HasSuffix(line, "\n") {
			break
		}
		var c watchCycle
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("watch -o json line %q: %v", line, err)
		}
		out = append(out, c)
	}
	return out
}

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t *testing.T, what string, cond func() bool, w *watcher) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\nstdout:\n%s\nstderr:\n%s", what, w.stdout, w.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fileHas(path, s string) func() bool {
	return func() bool {
		b, err := os.ReadFile(path)
		return err == nil && strings.Contains(string(b), s)
	}
}

const watchConfig = `package actant
skills: notes: dir: "skills/notes"
prompts: p: content: "PROMPT-0"
templates: t: {backend: "claude-code", skills: ["notes"], prompts: ["p"]}
agents: a: template: "t"
`

func TestWatch(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{
		"actant.cue":             watchConfig,
		"skills/notes/SKILL.md":  "---\ndescription: notes\n---\nNOTES-0\n",
		"skills/notes/extra.txt": "x",
	})
	claude := filepath.Join(dir, "CLAUDE.md")
	w := startWatch(t, dir, home, "-o", "json")
	eventually(t, "initial apply", fileHas(claude, "PROMPT-0"), w)
	cfgPath := filepath.Join(dir, "actant.cue")

	// 1. In-place write.
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(watchConfig, "PROMPT-0", "PROMPT-1", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "in-place write applied", fileHas(claude, "PROMPT-1"), w)

	// 2. Write a temp file and rename it over the config.
	tmp := filepath.Join(dir, ".actant.cue.tmp")
	os.WriteFile(tmp, []byte(strings.Replace(watchConfig, "PROMPT-0", "PROMPT-2", 1)), 0o644)
	if err := os.Rename(tmp, cfgPath); err != nil {
		t.Fatal(err)
	}
	eventually(t, "rename applied", fileHas(claude, "PROMPT-2"), w)

	// 3. vim style: remove, then create.
	os.Remove(cfgPath)
	os.WriteFile(cfgPath, []byte(strings.Replace(watchConfig, "PROMPT-0", "PROMPT-3", 1)), 0o644)
	eventually(t, "remove+create applied", fileHas(claude, "PROMPT-3"), w)

	// 4. A new file in a new sub-directory of a skill directory.
	writeFiles(t, dir, map[string]string{"skills/notes/ref/deep/more.md": "MORE"})
	eventually(t, "new nested skill file", fileHas(filepath.Join(dir, ".claude/skills/notes/ref/deep/more.md"), "MORE"), w)

	// 5. A broken config: positioned error, files untouched, watch alive.
	before, _ := os.ReadFile(claude)
	os.WriteFile(cfgPath, []byte(strings.Replace(watchConfig, "PROMPT-0", "PROMPT-4", 1)+"agents: b: {\n"), 0o644)
	eventually(t, "error reported", func() bool {
		return slices.ContainsFunc(w.cycles(t), func(c watchCycle) bool { return strings.Contains(c.Error, "actant.cue:6:") })
	}, w)
	if after, _ := os.ReadFile(claude); !bytes.Equal(before, after) {
		t.Errorf("a broken config changed CLAUDE.md")
	}
	os.WriteFile(cfgPath, []byte(strings.Replace(watchConfig, "PROMPT-0", "PROMPT-5", 1)), 0o644)
	eventually(t, "fixed config applied", fileHas(claude, "PROMPT-5"), w)

	// 6. A burst of 50 writes: the last cycle sees the last write. (That
	// the burst is coalesced is proven without timing in the watch
	// package: TestWatchBurstQueuesOneRun.)
	for i := 0; i < 50; i++ {
		os.WriteFile(filepath.Join(dir, "skills/notes/SKILL.md"), []byte("---\ndescription: notes\n---\nBURST-"+itoa(i)+"\n"), 0o644)
	}
	eventually(t, "burst applied", fileHas(filepath.Join(dir, ".claude/skills/notes/SKILL.md"), "BURST-49"), w)

	// 7. No reapply loop from our own writes: every cycle after the first
	// was triggered by a file this test wrote, never by one actctl wrote
	// (or by the time its racy inputs settle: a run once more, which
	// records them, printed when it saw an edit before its event).
	// A cycle's own writes would show in the trigger of a later cycle
	// (each step above waited for the outputs of a later one), so this
	// needs no observation window.
	for _, c := range w.cycles(t)[1:] {
		if c.Kind != "apply" {
			continue // a watch that could not be set up: reported, not a cycle
		}
		if len(c.Trigger) == 0 || slices.ContainsFunc(c.Trigger, func(p string) bool { return !userWrote(dir, p) && p != watch.TriggerAgain }) {
			t.Errorf("cycle triggered by %q, want only files the user wrote\nstdout:\n%s", c.Trigger, w.stdout)
		}
	}

	// SIGTERM ends the watch with status 0.
	w.cmd.Process.Signal(syscall.SIGTERM)
	if err := w.cmd.Wait(); err != nil {
		t.Errorf("watch exit after SIGTERM: %v\n%s", err, w.stderr)
	}
}

// userWrote reports whether TestWatch wrote path (in dir): the config, its
// temporary file, the skill's files.
func userWrote(dir, path string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil && !strings.HasPrefix(path, dir+string(filepath.Separator)) {
		dir = d // the watch names the workspace's real path
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && (rel == "actant.cue" || rel == ".actant.cue.tmp" || rel == "skills" || strings.HasPrefix(rel, "skills/"))
}

// TestWatchHubPoll: a hub branch that moves is picked up at the source's
// interval: the lock gets the new commit and the agent is re-applied.
func TestWatchHubPoll(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required")
	}
	repo := t.TempDir()
	gitRun := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitRun("init", "-q", "-b", "main")
	writeFiles(t, repo, map[string]string{"tips/SKILL.md": "---\nname: tips\ndescription: tips\n---\nTIP-1\n"})
	gitRun("add", ".")
	gitRun("commit", "-qm", "one")

	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	events := filepath.Join(t.TempDir(), "events.log")
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant
hub: team: {url: "` + repo + `", ref: branch: "main", interval: "1s"}
templates: t: {backend: "claude-code", skills: ["team@tips"]}
agents: a: template: "t"
hooks: moved: {on: "source:updated", run: {command: "/bin/sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> ` + events + `"]}}
`})
	skill := filepath.Join(dir, ".claude/skills/tips/SKILL.md")
	w := startWatch(t, dir, home)
	eventually(t, "initial apply from the hub", fileHas(skill, "TIP-1"), w)

	writeFiles(t, repo, map[string]string{"tips/SKILL.md": "---\nname: tips\ndescription: tips\n---\nTIP-2\n"})
	gitRun("commit", "-qam", "two")
	head := gitRun("rev-parse", "HEAD")
	eventually(t, "moved branch applied", fileHas(skill, "TIP-2"), w)
	if b, _ := os.ReadFile(filepath.Join(dir, "actant.lock")); !strings.Contains(string(b), head) {
		t.Errorf("lock lacks the new commit %s:\n%s", head, b)
	}
	// The move fired the source:updated hook (docs/runtime.md).
	eventually(t, "source:updated hook", fileHas(events, `"name":"source:updated"`), w)
	if b, _ := os.ReadFile(events); !strings.Contains(string(b), `"source":"team"`) || !strings.Contains(string(b), `"to":"`+head+`"`) {
		t.Errorf("source:updated event: %s", b)
	}
}
