package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/testutil"
)

// TestQuietStartE2E: run, chat and proxy print their agent's apply only
// when it changed something: a second start says nothing of it (it said
// "run helper: no changes (DIR)" on every start); the warning of another
// agent is not theirs to print, their own is printed once (issue #22
// item 12).
func TestQuietStartE2E(t *testing.T) {
	root, home := runWorkspace(t)
	first := actctl(t, root, home, "run", "helper", "-p", "hello")
	if first.Code != 0 || !strings.Contains(first.Stderr, "run helper: applied") {
		t.Fatalf("first run: exit %d\n%s", first.Code, first.Stderr)
	}
	for _, args := range [][]string{{"run", "helper", "-p", "hello"}, {"chat", "helper"}} {
		r := actctl(t, root, home, args...)
		if r.Code != 0 || strings.Contains(r.Stderr, "no changes") || strings.Contains(r.Stderr, "applied") {
			t.Errorf("%s again: exit %d, stderr:\n%s", args, r.Code, r.Stderr)
		}
	}
	r := actctl(t, root, home, "run", "reader", "-p", "hello")
	if n := strings.Count(r.Stderr, "warning: agents.reader"); n > 1 {
		t.Errorf("run reader: its warning printed %d times:\n%s", n, r.Stderr)
	}
	if strings.Contains(r.Stderr, "agents.helper") || strings.Contains(r.Stderr, "agents.boss") {
		t.Errorf("run reader printed another agent's warning:\n%s", r.Stderr)
	}
}

// TestMessagesNoiseE2E: the messages issue #22 item 12 names, each in a
// form that says what it means once (prune lines and the protected-file
// message are testdata/script/prune_lines_name_agent_once.txtar and
// protected_file_message.txtar): zed --write lists names as words, status and diff of an unknown agent
// do not name apply, get KIND NAME shows that one, up --help gives one
// default for --debounce, and attach refuses pid 1 writing nothing.
func TestMessagesNoiseE2E(t *testing.T) {
	t.Run("zed --write", func(t *testing.T) {
		dir, home := agentWorkspace(t)
		settings := filepath.Join(t.TempDir(), "settings.json")
		r := actctl(t, dir, home, "zed", "--write", "--settings", settings)
		if want := settings + ": 2 agent servers: helper, worker\n"; r.Code != 0 || r.Stdout != want {
			t.Errorf("zed --write: exit %d\n%s%s\nwant %q", r.Code, r.Stdout, r.Stderr, want)
		}
	})
	t.Run("unknown agent", func(t *testing.T) {
		dir, home := agentWorkspace(t)
		for cmd, code := range map[string]int{"status": 1, "diff": 2, "apply": 1} {
			r := actctl(t, dir, home, cmd, "helpr")
			want := "actctl: unknown agent \"helpr\" (did you mean \"helper\"?)\n"
			if r.Code != code || r.Stderr != want {
				t.Errorf("%s helpr: exit %d\n%s\nwant %s", cmd, r.Code, r.Stderr, want)
			}
		}
		assertNotWritten(t, dir, "apply helpr", ".actant", "proj/FAKE.md")
	})
	t.Run("get NAME", func(t *testing.T) {
		dir, home := agentWorkspace(t)
		r := actctl(t, dir, home, "get", "agents", "helper")
		if r.Code != 0 || !strings.HasPrefix(r.Stdout, "NAME") || !strings.Contains(r.Stdout, "\nhelper ") || strings.Contains(r.Stdout, "worker") {
			t.Errorf("get agents helper: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		r = actctl(t, dir, home, "get", "templates", "tool", "-o", "json")
		if r.Code != 0 || !strings.Contains(r.Stdout, `"name": "tool"`) || strings.Contains(r.Stdout, `"emp"`) {
			t.Errorf("get templates tool -o json: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		// Completion offers the names of the kind.
		if r := actctl(t, dir, home, completeCmd, "--", "get", "templates", ""); strings.Join(strings.Fields(r.Stdout), " ") != "emp tool" {
			t.Errorf("complete get templates: %q %q", r.Stdout, r.Stderr)
		}
		for _, tc := range []struct{ args, want string }{
			{"agents helpr", `actctl: unknown agent "helpr" (did you mean "helper"?)` + "\n"},
			{"agents claude", `actctl: unknown agent "claude" (there are helper, worker)` + "\n"},
			{"mcp x", `actctl: get mcp: no MCP server "x"` + "\n"},
		} {
			r := actctl(t, dir, home, append([]string{"get"}, strings.Fields(tc.args)...)...)
			if r.Code != 1 || r.Stderr != tc.want || r.Stdout != "" {
				t.Errorf("get %s: exit %d\n%s%s\nwant %s", tc.args, r.Code, r.Stdout, r.Stderr, tc.want)
			}
		}
	})
	t.Run("up --help", func(t *testing.T) {
		r := actctl(t, t.TempDir(), "", "up", "--help")
		line := regexp.MustCompile(`(?m)^.*--debounce.*$`).FindString(r.Stdout)
		if strings.Count(line, "default") != 1 || !strings.Contains(line, "50ms") {
			t.Errorf("up --help: --debounce line %q", line)
		}
	})
	t.Run("attach --pid 1", func(t *testing.T) {
		dir, home := agentWorkspace(t)
		for _, pid := range []string{"1", "0", "-1"} {
			r := actctl(t, dir, home, "attach", "helper", "--pid", pid)
			want := "actctl: attach helper: pid " + pid + " is not a backend's process: want the pid of the agent's running backend\n"
			if r.Code != 1 || r.Stderr != want {
				t.Errorf("attach --pid %s: exit %d\n%s\nwant %s", pid, r.Code, r.Stderr, want)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "proj", ".actant", "agents", "helper.json")); err == nil {
			t.Error("a refused attach wrote the record")
		}
	})
}

// TestWatchWarnsOnceE2E: apply --watch prints a warning when it appears,
// not again on every re-apply; a warning that went away and comes back
// is printed again (it was printed on every cycle) (issue #22 item 12).
func TestWatchWarnsOnceE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	cfg := func(prompt, perms string) string {
		return `package actant
prompts: p: content: "` + prompt + `"
templates: dev: {backend: "cursor", prompts: ["p"]` + perms + `}
agents: dev: template: "dev"
`
	}
	const warned = `, permissions: "readonly"`
	writeConfig(t, dir, cfg("P-0", warned))
	cmd := exec.Command(actctlBin, "apply", "--watch")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	var stderr testutil.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	lines := bufio.NewScanner(stdout)
	// next waits for the next cycle's summary: its warnings were written
	// to stderr before it.
	next := func(what string) {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("%s: the watch ended\n%s", what, stderr.String())
		}
		if !strings.HasPrefix(lines.Text(), "applied: ") {
			t.Fatalf("%s: %q", what, lines.Text())
		}
	}
	// Each edit replaces the file whole (a rename), so that no cycle
	// reads it half written.
	edit := func(content string) {
		t.Helper()
		tmp := filepath.Join(dir, ".actant.cue.tmp")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "actant.cue")); err != nil {
			t.Fatal(err)
		}
	}
	next("initial")
	edit(cfg("P-1", warned))
	next("edit")
	edit(cfg("P-2", ""))
	next("warning gone")
	edit(cfg("P-3", warned))
	next("warning back")
	// stderr is copied from a pipe of its own: only once the process has
	// ended and Wait returned has all of it arrived.
	cmd.Process.Kill()
	cmd.Wait()
	if n := strings.Count(stderr.String(), "warning: agents.dev: permissions"); n != 2 {
		t.Errorf("the warning was printed %d times, want 2 (first cycle, and once it came back):\n%s", n, stderr.String())
	}
}
