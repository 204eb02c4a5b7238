package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// watcher runs `actctl apply --watch` in the background.
type watcher struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
}

func startWatch(t *testing.T, dir, home string, args ...string) *watcher {
	t.Helper()
	w := &watcher{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
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

// cycles counts the summary lines printed so far.
func (w *watcher) cycles() int {
	n := 0
	for _, l := range strings.Split(w.stdout.String(), "\n") {
		if strings.HasPrefix(l, "applied:") || l == "no changes" {
			n++
		}
	}
	return n
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
	w := startWatch(t, dir, home)
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
	eventually(t, "error reported", func() bool { return strings.Contains(w.stderr.String(), "actant.cue:6:") }, w)
	if after, _ := os.ReadFile(claude); !bytes.Equal(before, after) {
		t.Errorf("a broken config changed CLAUDE.md")
	}
	os.WriteFile(cfgPath, []byte(strings.Replace(watchConfig, "PROMPT-0", "PROMPT-5", 1)), 0o644)
	eventually(t, "fixed config applied", fileHas(claude, "PROMPT-5"), w)

	// 6. A burst of 50 writes: few cycles, the last one sees the last write.
	settle(t, w)
	n0 := w.cycles()
	for i := 0; i < 50; i++ {
		os.WriteFile(filepath.Join(dir, "skills/notes/SKILL.md"), []byte("---\ndescription: notes\n---\nBURST-"+itoa(i)+"\n"), 0o644)
	}
	eventually(t, "burst applied", fileHas(filepath.Join(dir, ".claude/skills/notes/SKILL.md"), "BURST-49"), w)
	settle(t, w)
	if n := w.cycles() - n0; n > 10 {
		t.Errorf("a burst of 50 writes caused %d cycles", n)
	}

	// 7. No reapply loop from our own writes: quiet means no new cycle.
	n1 := w.cycles()
	time.Sleep(500 * time.Millisecond) // observation window, not a sync point
	if n := w.cycles(); n != n1 {
		t.Errorf("cycles kept coming without changes: %d -> %d\n%s", n1, n, w.stdout)
	}

	// SIGTERM ends the watch with status 0.
	w.cmd.Process.Signal(syscall.SIGTERM)
	if err := w.cmd.Wait(); err != nil {
		t.Errorf("watch exit after SIGTERM: %v\n%s", err, w.stderr)
	}
}

// settle waits until no cycle was printed for a while.
func settle(t *testing.T, w *watcher) {
	t.Helper()
	last, since := w.cycles(), time.Now()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if n := w.cycles(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > 300*time.Millisecond {
			return
		}
	}
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
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant
hub: team: {url: "` + repo + `", ref: branch: "main", interval: "1s"}
templates: t: {backend: "claude-code", skills: ["team@tips"]}
agents: a: template: "t"
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
}
