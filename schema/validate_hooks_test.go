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
		{"archetypes: repo: interactionModes: [\"chat\"]\ntemplates: rt: {backend: \"claude-code\", archetype: \"repo\"}\nagents: rp: template: \"rt\"\n" +
			`hooks: x: {on: "task:done", agents: ["writer"], prompt: {agent: "rp", text: "t"}}`,
			`actant.cue:8:65: hooks.x.prompt.agent: agent "rp" cannot be prompted by a hook: up does not hold it (launchMode "direct") and it does not offer run (archetype repo's interactionModes); add run to them`},
		{"archetypes: employee: {interactionModes: [\"proxy\"], autoStart: false}\ntemplates: et: {backend: \"claude-code\", archetype: \"employee\", schedule: heartbeat: {interval: \"1h\", prompt: \"p\"}}\nagents: em: template: \"et\"\n" +
			`hooks: x: {on: "task:done", agents: ["writer"], prompt: {agent: "em", text: "t"}}`,
			`actant.cue:8:65: hooks.x.prompt.agent: agent "em" cannot be prompted by a hook: up does not hold it (archetype employee's interactionModes leave out start) and it does not offer run (archetype employee's interactionModes); add start or run to them, or prompt an employee or service`},
		{`hooks: x: {on: "idle", run: {command: "true", timeout: "soon"}}`,
			`hooks.x.run.timeout: want a duration such as "30s" or "5m", got "soon"`},
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

// TestHookLoopsWarned (issue #20 item 12): validation warns, with
// positions, of every loop of hooks it can see: two agents whose task
// events prompt each other, longer rings, a hook on every agent, and a run
// hook that is plainly `actctl prompt AGENT`. Chains that end, and loops
// through events a task does not cause, are not warned of. Before, all of
// these passed in silence.
func TestHookLoopsWarned(t *testing.T) {
	const base = `package actant
templates: emp: {backend: "claude-code", archetype: "service"}
agents: a: template: "emp"
agents: b: template: "emp"
agents: c: template: "emp"
`
	for _, tc := range []struct {
		name, hooks string
		want        []string // one warning each, exactly
	}{
		{"two agents", `hooks: "a-done": {on: "task:done", agents: ["a"], prompt: {agent: "b", text: "t"}}
hooks: "b-done": {on: "task:done", agents: ["b"], prompt: {agent: "a", text: "t"}}`,
			[]string{`actant.cue:6:67: warning: hooks."a-done".prompt.agent: hooks prompt agents in a loop: a's task events prompt b (hooks."a-done" at actant.cue:6:67), b's task events prompt a (hooks."b-done" at actant.cue:7:67); at run time a prompt caused through more than 8 hooks is dropped`}},
		{"a ring of three on different events", `hooks: x: {on: "task:done", agents: ["a"], prompt: {agent: "b", text: "t"}}
hooks: y: {on: "task:failed", agents: ["b"], prompt: {agent: "c", text: "t"}}
hooks: z: {on: "idle", agents: ["c"], prompt: {agent: "a", text: "t"}}`,
			[]string{`hooks.x.prompt.agent: hooks prompt agents in a loop: a's task events prompt b (hooks.x at actant.cue:6:60), b's task events prompt c (hooks.y at actant.cue:7:62), c's task events prompt a (hooks.z at actant.cue:8:55)`}},
		{"a hook on every agent", `hooks: x: {on: "task:done", agents: ["c"], prompt: {agent: "b", text: "t"}}
hooks: y: {on: "session:end", prompt: {agent: "c", text: "t"}, agents: ["a", "b"]}`,
			[]string{`hooks prompt agents in a loop: b's task events prompt c (hooks.y at actant.cue:7:47), c's task events prompt b (hooks.x at actant.cue:6:60)`}},
		{"a run hook running actctl prompt", `hooks: x: {on: "task:done", agents: ["a"], prompt: {agent: "b", text: "t"}}
hooks: y: {on: "task:done", agents: ["b"], run: {command: "/usr/local/bin/actctl", args: ["-C", ".", "prompt", "--no-wait", "-p", "go", "a"]}}`,
			[]string{`b's task events prompt a (hooks.y at actant.cue:7:137)`}},
		{"a chain that ends", `hooks: x: {on: "task:done", agents: ["a"], prompt: {agent: "b", text: "t"}}
hooks: y: {on: "task:done", agents: ["b"], prompt: {agent: "c", text: "t"}}
hooks: z: {on: "task:done", agents: ["b"], run: {command: "actctl", args: ["status"]}}`, nil},
		{"not a task event", `hooks: x: {on: "process:crash", agents: ["a"], prompt: {agent: "b", text: "t"}}
hooks: y: {on: "process:crash", agents: ["b"], prompt: {agent: "a", text: "t"}}`, nil},
	} {
		cfg := mustLoad(t, map[string]string{"actant.cue": base + tc.hooks + "\n"})
		var got []string
		for _, w := range cfg.Warnings {
			if strings.Contains(w.Message, "loop") {
				got = append(got, w.String())
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: warnings\n%s\nwant %d", tc.name, strings.Join(got, "\n"), len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s:\ngot  %s\nwant %s", tc.name, got[i], w)
			}
		}
	}
}
