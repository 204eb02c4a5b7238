//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestHookLoopE2E (issue #20 item 12): two employees whose task:done
// hooks prompt each other, through prompt hooks or through a run hook
// that calls `actctl prompt` (the chain travels in ACTCTL_HOOK_CHAIN and
// the control request), run the first prompt and 8 hook-caused ones; the
// next is dropped with one warning naming the chain, and nothing more
// runs. validate and apply warn of the loop they can see, at its
// position. Before, the loop ran until up was stopped.
func TestHookLoopE2E(t *testing.T) {
	for _, tc := range []struct {
		name, bHook, first string
		seen               bool // the loop is visible to validation
	}{
		{"prompt hooks", `prompt: {agent: "a", text: "hello from b"}`, "a", true},
		{"a run hook calling actctl prompt", `run: {command: "` + actctlBin + `", args: ["prompt", "a", "--no-wait", "-p", "hello from b"]}`, "b", true},
		{"a run hook through sh", `run: {command: "sh", args: ["-c", "exec \"$ACTCTL\" prompt a --no-wait -p 'hello from b'"], env: ACTCTL: "` + actctlBin + `"}`, "b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
			promptLog := filepath.Join(root, "prompts.log")
			writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_PROMPT_LOG: "`+promptLog+`"`)+`
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "24h", prompt: "rest"}}
agents: a: template: "emp"
agents: b: template: "emp"
hooks: "a-done": {on: "task:done", agents: ["a"], prompt: {agent: "b", text: "hello from a"}}
hooks: "b-done": {on: "task:done", agents: ["b"], `+tc.bHook+`}
`)
			loopWarning := regexp.MustCompile(`actant\.cue:\d+:\d+: warning: hooks\."a-done"\.prompt\.agent: hooks prompt agents in a loop: a's task events prompt b \(hooks\."a-done" at actant\.cue:\d+:\d+\), b's task events prompt a \(hooks\."b-done" at actant\.cue:\d+:\d+\)`)
			for _, cmd := range []string{"validate", "apply"} {
				r := actctl(t, root, home, cmd)
				if warned := loopWarning.MatchString(r.Stderr); r.Code != 0 || warned != tc.seen {
					t.Fatalf("%s: exit %d, loop warned %v, want %v:\n%s", cmd, r.Code, warned, tc.seen, r.Stderr)
				}
			}
			p := startUp(t, root, home)
			p.waitLine(`up: (a|b): process:start`)
			p.waitLine(`up: (a|b): process:start`)
			if r := actctl(t, root, home, "prompt", tc.first, "-p", "hello from the user"); r.Code != 0 {
				t.Fatalf("prompt: %d\n%s", r.Code, r.Stderr)
			}
			// The 9th hook of the chain would make the 10th task: dropped.
			dropped := `actctl: warning: hook loop: a prompt to (a|b) caused through 9 hooks \((a-done|b-done)( -> (a-done|b-done)){8}\) was dropped: more than 8`
			p.waitLine(dropped)
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if err := p.cmd.Wait(); err != nil {
				t.Fatalf("up after SIGTERM: %v\n%s", err, p.stderr())
			}
			b, _ := os.ReadFile(promptLog)
			if n := strings.Count(string(b), "hello from"); n != 9 {
				t.Errorf("%d prompts ran, want 9 (the user's and 8 caused by hooks):\n%s", n, b)
			}
			stderr := p.stderr()
			if n := len(regexp.MustCompile(`hook loop`).FindAllString(stderr, -1)); n != 1 {
				t.Errorf("%d hook loop warnings, want 1:\n%s", n, stderr)
			}
			if strings.Contains(stderr, "hook b-done (") {
				t.Errorf("the dropped run hook is reported as well as the loop:\n%s", stderr)
			}
		})
	}
}

// TestPromptBadHookChain: `actctl prompt` refuses a malformed
// ACTCTL_HOOK_CHAIN with a message naming it, before it looks for up, and
// writes nothing.
func TestPromptBadHookChain(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
templates: svc: {backend: "claude-code", archetype: "service"}
agents: a: template: "svc"
`)
	for chain, want := range map[string]string{
		`nope`:                      `actctl: prompt: ACTCTL_HOOK_CHAIN: invalid hook chain "nope"`,
		`{"hooks":["x"]}`:           `no root`,
		`{"root":"r","hooks":[""]}`: `a hook without a name`,
	} {
		r := actctlEnv(t, root, home, []string{"ACTCTL_HOOK_CHAIN=" + chain}, "prompt", "a", "-p", "hi")
		if r.Code != 1 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stderr, upNoUp) {
			t.Errorf("chain %s: exit %d, stderr %q, want %q", chain, r.Code, r.Stderr, want)
		}
	}
	if files := listFiles(t, root); len(files) != 1 {
		t.Errorf("files written: %v", files)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("home created: %v", err)
	}
}
