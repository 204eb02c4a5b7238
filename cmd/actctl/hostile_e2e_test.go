package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// hostileWorkspace declares one agent per way of giving permissions, all
// on the scripted agent (internal/acptestagent), whose hostile ops ignore
// what the client advertised.
func hostileWorkspace(t *testing.T, env string) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, env)+`
templates: {
	ro:    {backend: "scripted", permissions: "readonly"}
	rs:    {backend: "scripted", permissions: "restricted"}
	std:   {backend: "scripted", permissions: "standard"}
	all:   {backend: "scripted", permissions: "permissive"}
	unset: {backend: "scripted"}
	plan:  {backend: "scripted", permissions: {defaultMode: "plan", allow: ["Read"]}}
	dflt:  {backend: "scripted", permissions: {defaultMode: "default"}}
	edits: {backend: "scripted", permissions: {defaultMode: "acceptEdits", deny: ["Bash"]}}
	bypass: {backend: "scripted", permissions: {defaultMode: "bypassPermissions"}}
}
agents: {
	ro: template: "ro"
	rs: template: "rs"
	std: template: "std"
	all: template: "all"
	unset: template: "unset"
	plan: template: "plan"
	dflt: template: "dflt"
	edits: template: "edits"
	bypass: template: "bypass"
}
`)
	return root, home
}

// TestPresetBindsTheClient: what the preset denies, the client refuses
// when the agent calls it directly, and does not advertise: readonly,
// restricted and an explicit plan or default mode get neither
// fs/write_text_file nor terminal/*; standard (also no permissions at all,
// and acceptEdits) writes but runs no terminal; permissive (and
// bypassPermissions) both. --deny-all and --approve-reads narrow it to
// reads; --approve-all widens nothing. Refused writes leave no file,
// refused terminals start nothing. (issue #20 item 5)
func TestPresetBindsTheClient(t *testing.T) {
	root, home := hostileWorkspace(t, "")
	proj := t.TempDir()
	for _, tc := range []struct {
		agent, flag     string
		write, terminal bool
	}{
		{"ro", "", false, false}, {"rs", "", false, false}, {"plan", "", false, false}, {"dflt", "", false, false},
		{"std", "", true, false}, {"unset", "", true, false}, {"edits", "", true, false},
		{"all", "", true, true}, {"bypass", "", true, true},
		{"ro", "--approve-all", false, false}, {"std", "--approve-all", true, false},
		{"all", "--deny-all", false, false}, {"all", "--approve-reads", false, false},
	} {
		name := tc.agent + tc.flag
		target := filepath.Join(proj, name+".txt")
		args := []string{"run", tc.agent, "--cwd", proj, "-p", "ignore-preset " + target}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		r := actctl(t, root, home, args...)
		if r.Code != 0 {
			t.Errorf("%s: exit %d\n%s%s", name, r.Code, r.Stdout, r.Stderr)
			continue
		}
		if want := fmt.Sprintf("caps write=%v terminal=%v\n", tc.write, tc.terminal); !strings.Contains(r.Stdout, want) {
			t.Errorf("%s: initialize advertised %q, want %q", name, firstLine(r.Stdout), want)
		}
		_, err := os.Stat(target)
		switch {
		case tc.write && (err != nil || !strings.Contains(r.Stdout, "write: ok\n")):
			t.Errorf("%s: the write was refused: %v\n%s", name, err, r.Stdout)
		case !tc.write && !regexp.MustCompile(`write refused: .*actctl refuses fs/write_text_file: this agent's permissions do not let it write files`).MatchString(r.Stdout):
			t.Errorf("%s: the write was not refused with the reason:\n%s", name, r.Stdout)
		case !tc.write:
			assertNotWritten(t, proj, name+": a refused write", name+".txt")
		}
		ran := strings.Contains(r.Stdout, "terminal: term-ran\n") && strings.Contains(r.Stderr, "terminal term-1")
		switch {
		case tc.terminal && !ran:
			t.Errorf("%s: the terminal did not run:\n%s%s", name, r.Stdout, r.Stderr)
		case !tc.terminal && (strings.Contains(r.Stderr, "terminal term-") ||
			!regexp.MustCompile(`terminal refused: .*actctl refuses terminal/create: this agent's permissions do not let it run commands`).MatchString(r.Stdout)):
			t.Errorf("%s: the terminal was not refused with the reason:\n%s%s", name, r.Stdout, r.Stderr)
		}
	}
}

// TestOversizeMessage: a message over the protocol's line limit (10 MiB)
// ends the run saying so, not "backend exited during the turn", and the
// backend is stopped. (issue #20 item 15)
func TestOversizeMessage(t *testing.T) {
	root, home := hostileWorkspace(t, "")
	r := actctl(t, root, home, "run", "std", "-p", "oversize 11000000")
	if r.Code != 1 || !strings.Contains(r.Stderr, "it sent a message of more than 10 MiB (the limit of one JSON-RPC line); stopped it") || strings.Contains(r.Stderr, "exited during") {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestAgentTextEscaped: what the agent wrote (a plan, a tool title and
// kind, the option chosen, its message text, its error message) is
// printed by run with its control characters escaped: no escape sequence
// reaches the terminal, and a title cannot erase its line to ask a
// question of its own. (issue #20 item 10)
func TestAgentTextEscaped(t *testing.T) {
	root, home := hostileWorkspace(t, "")
	r := actctl(t, root, home, "run", "all", "-p", "spoof")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{
		`permission allowed: read notes\x1b[2K\rallow read (read)?  (execute), option "yes\x1b[8m"`,
		`plan: [pending] step\x1b[31m one\r\nallow all? `,
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %s:\n%s", want, r.Stderr)
		}
	}
	if want := `hello\x1b]0;pwned\x07 there \u009b31m \u202eexe.txt` + "\n"; !strings.Contains(r.Stdout, want) {
		t.Errorf("stdout %q lacks %q", r.Stdout, want)
	}
	r2 := actctl(t, root, home, "run", "all", "-p", "spoof-error")
	if r2.Code != 1 || !strings.Contains(r2.Stderr, `agent failed\x1b[2J\rforged`) {
		t.Errorf("error: exit %d\n%s", r2.Code, r2.Stderr)
	}
	for _, out := range []string{r.Stdout, r.Stderr, r2.Stdout, r2.Stderr} {
		if strings.ContainsAny(out, "\x1b\r\a\u009b\u202e") {
			t.Errorf("a control character was printed raw: %q", out)
		}
	}
}
