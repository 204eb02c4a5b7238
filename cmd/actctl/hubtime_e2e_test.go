package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyCountsHubFetch: the time apply reports covers the hub fetch
// (a 107 MB clone was 13.6 s of silence, then "applied ... in 6ms"), and
// no fetch progress is printed when stderr is not a terminal, nor in -o
// json (issue #22 item 14).
func TestApplyCountsHubFetch(t *testing.T) {
	cue := hubConfig(t)
	t.Run("json", func(t *testing.T) {
		root := t.TempDir()
		writeFiles(t, root, map[string]string{"actant.cue": cue})
		r := actctl(t, root, "", "-o", "json", "apply")
		var res struct {
			DurationMS float64  `json:"durationMs"`
			HubMS      *float64 `json:"hubMs"`
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &res) != nil {
			t.Fatalf("apply -o json: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
		}
		if res.HubMS == nil || *res.HubMS <= 0 || res.DurationMS < *res.HubMS {
			t.Errorf("durationMs %v must include the hub fetch, hubMs %v:\n%s", res.DurationMS, res.HubMS, r.Stdout)
		}
		if strings.Contains(r.Stderr, "hub:") || strings.Contains(r.Stderr, "\r") {
			t.Errorf("progress printed when stderr is no terminal:\n%q", r.Stderr)
		}
	})
	t.Run("watch", func(t *testing.T) {
		root := t.TempDir()
		writeFiles(t, root, map[string]string{"actant.cue": cue})
		cmd := exec.Command(actctlBin, "apply", "--watch", "-o", "json")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+filepath.Join(t.TempDir(), "home"))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		lines := bufio.NewScanner(stdout)
		if !lines.Scan() {
			t.Fatalf("the watch ended: %v", lines.Err())
		}
		var c struct {
			Result struct {
				DurationMS float64 `json:"durationMs"`
				HubMS      float64 `json:"hubMs"`
			} `json:"result"`
		}
		if err := json.Unmarshal(lines.Bytes(), &c); err != nil || c.Result.HubMS <= 0 || c.Result.DurationMS < c.Result.HubMS {
			t.Errorf("the first cycle's apply must count the hub fetch: %v\n%s", err, lines.Text())
		}
	})
	t.Run("text", func(t *testing.T) {
		root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
		writeFiles(t, root, map[string]string{"actant.cue": cue})
		r := actctl(t, root, home, "apply")
		if r.Code != 0 || !strings.Contains(r.Stdout, "applied: ") || !strings.Contains(r.Stdout, " (hub fetch ") {
			t.Errorf("apply's summary must say the fetch's time: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
		}
		if strings.Contains(r.Stderr, "hub:") || strings.Contains(r.Stderr, "\r") {
			t.Errorf("progress printed when stderr is no terminal:\n%q", r.Stderr)
		}
		// Lock and cache satisfied: no network, no hub time.
		r = actctl(t, root, home, "-o", "json", "apply")
		if r.Code != 0 || strings.Contains(r.Stdout, "hubMs") {
			t.Errorf("a cached hub has no hubMs: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
		}
	})
}

// hubConfig makes a local git repository in the actant-hub layout and
// returns a config whose agent uses a skill from it.
func hubConfig(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required (.ci/run installs it)")
	}
	repo := filepath.Join(t.TempDir(), "hub")
	writeFiles(t, repo, map[string]string{
		"actant.json":        `{"name":"h","version":"1.0.0"}`,
		"skills/review.json": `{"name":"review","version":"1.0.0","description":"Review code","content":"# Review"}`,
	})
	hubGit(t, repo, "init", "-q", "-b", "main")
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "one")
	return "package actant\nhub: team: {url: \"file://" + repo + "\", ref: branch: \"main\"}\n" +
		"templates: t: {backend: \"claude-code\", skills: [\"team@review\"]}\nagents: rev: template: \"t\"\n"
}
