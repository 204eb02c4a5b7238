package schema

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const hooksBase = `package actant
templates: svc: {backend: "claude-code", archetype: "service"}
agents: reviewer: template: "svc"
agents: writer: template: "svc"
`

func TestHooksValid(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": hooksBase + `
hooks: "notify-crash": {
	on:     "process:crash"
	agents: ["reviewer"]
	run: {command: "notify-send", args: ["crashed"], env: {LEVEL: "high"}, timeout: "5s"}
}
hooks: review: {
	on:     "task:done"
	agents: ["writer"]
	prompt: {agent: "reviewer", text: "review what {{event.agent}} did"}
}
hooks: "on-source": {on: "source:updated", run: command: "true"}
`})
	h := cfg.Hooks["notify-crash"]
	if h.On != "process:crash" || h.Run.Command != "notify-send" || h.Run.Env["LEVEL"] != "high" {
		t.Errorf("hook %+v", h)
	}
	if d, err := h.Run.TimeoutDuration(); err != nil || d != 5*time.Second {
		t.Errorf("timeout %v %v", d, err)
	}
	if d, _ := cfg.Hooks["on-source"].Run.TimeoutDuration(); d != DefaultHookTimeout {
		t.Errorf("default timeout %v", d)
	}
	if cfg.Hooks["review"].Prompt.Agent != "reviewer" {
		t.Errorf("prompt hook %+v", cfg.Hooks["review"])
	}
}

// TestHooksInvalid: every problem is an error at its field.
func TestHooksInvalid(t *testing.T) {
	for _, tc := range []struct{ hook, want string }{
		{`hooks: x: {on: "process:crsh", run: command: "true"}`,
			`actant.cue:5:16: hooks.x.on: unknown event "process:crsh" (did you mean "process:crash"?); events are agent:created`},
		{`hooks: x: {on: "process:crash", agents: ["reviewer", "reveiwer"], run: command: "true"}`,
			`actant.cue:5:54: hooks.x.agents[1]: unknown agent "reveiwer" (did you mean "reviewer"?)`},
		{`hooks: x: {on: "process:crash"}`,
			`actant.cue:5:8: hooks.x: a hook needs exactly one of run (a command) or prompt (a task for an agent)`},
		{`hooks: x: {on: "process:crash", run: command: "true", prompt: {agent: "writer", text: "t"}}`,
			`hooks.x: a hook needs exactly one of run`},
		{`hooks: x: {on: "process:crash", prompt: {agent: "wrtier", text: "t"}}`,
			`actant.cue:5:49: hooks.x.prompt.agent: unknown agent "wrtier" (did you mean "writer"?)`},
		{`hooks: x: {on: "task:done", prompt: {agent: "writer", text: "t"}}`,
			`hooks.x.on: prompting "writer" on task:done about "writer" itself would loop`},
		{`hooks: x: {on: "source:updated", agents: ["writer"], run: command: "true"}`,
			`hooks.x.agents: source:updated concerns no agent`},
		{`hooks: x: {on: "idle", run: {command: "true", timeout: "0s"}}`,
			`hooks.x.run.timeout: invalid timeout "0s"`},
		{`hooks: "../x": {on: "idle", run: command: "true"}`,
			`invalid name "../x"`},
		{`hooks: x: {on: "idle", run: {command: "true", timeout: "soon"}}`,
			`hooks.x.run.timeout: invalid value "soon"`},
	} {
		dir := writeWorkspace(t, map[string]string{"actant.cue": hooksBase + tc.hook + "\n"})
		_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		if !errors.As(err, &ds) {
			t.Errorf("%s: err = %v, want diagnostics", tc.hook, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\ngot  %v\nwant %s", tc.hook, err, tc.want)
		}
	}
}
