package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// completionConfig declares agents, templates, a backend and a hub source
// for the names completion offers.
const completionConfig = `package actant

hub: team: url: "https://example.com/team.git"
backends: mine: {acp: command: "my-acp", files: instructions: ["MINE.md"]}
templates: reviewer: backend: "claude-code"
templates: helper: backend: "mine"
agents: reviewer: template: "reviewer"
agents: "release-bot": template: "helper"
`

// TestCompletionScripts: the bash script `actctl completion bash` prints
// (testdata/script/completion_scripts.txtar checks every shell's), run by
// bash with the words of a command line, completes from the entry point.
func TestCompletionScripts(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, completionConfig)
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no bash on PATH in CI")
		}
		t.Skip("no bash")
	}
	script := actctl(t, dir, "", "completion", "bash").Stdout
	for _, tc := range []struct{ line, want string }{
		{"COMP_WORDS=(actctl run ''); COMP_CWORD=2", "release-bot reviewer"},
		{"COMP_WORDS=(actctl get ag); COMP_CWORD=2", "agents"},
		{"COMP_WORDS=(actctl run --template = h); COMP_CWORD=4", "helper"},
	} {
		out, err := shellCmd(t, dir, bash, "--norc", "--noprofile", "-c", script+tc.line+`; _actctl; echo "${COMPREPLY[*]}"`).CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
			t.Errorf("bash %s: %v %q, want %q", tc.line, err, got, tc.want)
		}
	}
}

// shellCmd runs a shell in dir with the built actctl first on PATH.
func shellCmd(t *testing.T, dir, shell string, args ...string) *exec.Cmd {
	cmd := exec.Command(shell, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(actctlBin)+string(os.PathListSeparator)+os.Getenv("PATH"), "ACTANT_HOME="+t.TempDir())
	return cmd
}

// lookShell is the path of shell, or skips the test when it is not
// installed, outside CI only (.ci/run installs zsh and fish).
func lookShell(t *testing.T, shell string) string {
	p, err := exec.LookPath(shell)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no %s on PATH in CI (.ci/run installs it)", shell)
		}
		t.Skipf("no %s on PATH", shell)
	}
	return p
}

// TestCompletionZsh: the zsh script, sourced after compinit, registers
// _actctl for actctl, and the function offers what the entry point
// completes for the words of a command line (compadd and _files, which
// only work inside a completion widget, are replaced by functions that
// print what they were given).
func TestCompletionZsh(t *testing.T) {
	zsh := lookShell(t, "zsh")
	dir := t.TempDir()
	writeConfig(t, dir, completionConfig)
	script := filepath.Join(t.TempDir(), "actctl.zsh")
	if err := os.WriteFile(script, []byte(actctl(t, dir, "", "completion", "zsh").Stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	setup := `autoload -Uz compinit && compinit -u -D -d "$1.dump" && source "$1" && print -r -- "registered=$_comps[actctl]"
compadd() { print -r -- "${(j: :)${(@P)2}}" }
_files() { print -r -- FILES }
`
	for _, tc := range []struct{ line, want string }{
		{`words=(actctl run ""); CURRENT=3`, "release-bot reviewer"},
		{`words=(actctl get ag); CURRENT=3`, "agents"},
		{`words=(actctl run --template=h); CURRENT=3`, "--template=helper"},
		{`words=(actctl "run" -t ""); CURRENT=4`, "helper reviewer"},
	} {
		out, err := shellCmd(t, dir, zsh, "-f", "-c", setup+tc.line+"; _actctl", "zsh", script).CombinedOutput()
		if want := "registered=_actctl\n" + tc.want + "\n"; err != nil || string(out) != want {
			t.Errorf("zsh %s: %v %q, want %q", tc.line, err, out, want)
		}
	}
}

// TestCompletionFish: the fish script, sourced, completes through fish's
// own completion machinery (complete -C, what fish runs at a tab).
func TestCompletionFish(t *testing.T) {
	fish := lookShell(t, "fish")
	dir := t.TempDir()
	writeConfig(t, dir, completionConfig)
	script := filepath.Join(t.TempDir(), "actctl.fish")
	if err := os.WriteFile(script, []byte(actctl(t, dir, "", "completion", "fish").Stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ line, want string }{
		{"actctl run ", "release-bot\nreviewer\n"},
		{"actctl get ag", "agents\n"},
		{"actctl run --template=h", "--template=helper\n"},
		{"actctl run -t ", "helper\nreviewer\n"},
	} {
		out, err := shellCmd(t, dir, fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, tc.line).CombinedOutput()
		if err != nil || string(out) != tc.want {
			t.Errorf("fish %q: %v %q, want %q", tc.line, err, out, tc.want)
		}
	}
}
