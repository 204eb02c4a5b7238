//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestUpEventsE2E: up publishes actctl:start, actctl:stop,
// session:start, prompt:before, prompt:after, error, user:prompt and
// webhook:NAME where they happen, each with its documented data: a run
// hook per event captures ACTCTL_EVENT (and fails, so that up's warning
// says it has run).
func TestUpEventsE2E(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	events := []string{schema.EventActctlStart, schema.EventActctlStop, schema.EventSessionStart, schema.EventPromptBefore,
		schema.EventPromptAfter, schema.EventError, schema.EventUserPrompt, "webhook:gh"}
	var hooksCUE strings.Builder
	for i, e := range events {
		fmt.Fprintf(&hooksCUE, "hooks: \"cap-%d\": {on: %q, run: {command: \"sh\", args: [\"-c\", \"printf '%%s\\\\n' \\\"$ACTCTL_EVENT\\\" >> events.log; exit 3\"]}}\n", i, e)
	}
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: svc: {backend: "scripted", archetype: "service"}
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "24h", prompt: "rest"}}
agents: api: template: "svc"
agents: triage: template: "emp"
webhooks: gh: {secretEnv: "ACTCTL_TEST_GH_SECRET", signature: "github"}
`+hooksCUE.String())
	t.Setenv("ACTCTL_TEST_GH_SECRET", webhookSecret)
	p := startUp(t, root, home, "--webhooks", "127.0.0.1:0")
	addr := p.waitLine(`up: webhooks on http://(\S+)/webhooks/`)[1]
	// Each hook once per event, in any order: api's session:start twice
	// (its primary session, the prompt's). One reader takes both the
	// agents' starts and the hooks' lines, so that none is skipped.
	pending := map[string]int{}
	for i, agents := range map[int][]string{0: {""}, 2: {"api", "api", "triage"}, 3: {"api", "triage"}, 4: {"api", "triage"}, 5: {"triage"}, 6: {"api", "triage"}, 7: {""}} {
		for _, a := range agents {
			pending[fmt.Sprintf("cap-%d %s %s", i, events[i], a)]++
		}
	}
	started := map[string]bool{}
	next := func() {
		m := p.waitLine(`up: (api|triage): process:start|warning: hook (cap-\d) \((\S+) (\S*)\): sh: exit status 3`)
		if m[1] != "" {
			started[m[1]] = true
			return
		}
		k := strings.Join(m[2:], " ")
		if pending[k]--; pending[k] <= 0 {
			delete(pending, k)
		}
	}
	for len(started) < 2 {
		next()
	}
	if r := actctl(t, root, home, "prompt", "api", "-p", "hello"); r.Code != 0 {
		t.Fatalf("prompt api: %d %s", r.Code, r.Stderr)
	}
	if r := actctl(t, root, home, "prompt", "triage", "-p", "refuse"); r.Code == 0 {
		t.Fatalf("prompt triage refuse: %d %s", r.Code, r.Stderr)
	}
	if code, body := postFixture(t, "http://"+addr+"/webhooks/gh", "issues", webhookSecret); code != 202 {
		t.Fatalf("webhook: %d %s", code, body)
	}
	for len(pending) > 0 {
		next()
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v\n%s", err, p.stderr())
	}
	got := map[string][]map[string]any{}
	b, _ := os.ReadFile(filepath.Join(root, "events.log"))
	for line := range strings.Lines(string(b)) {
		var ev struct {
			Name, Agent string
			Data        map[string]any
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		ev.Data["agent"] = ev.Agent
		got[ev.Name] = append(got[ev.Name], ev.Data)
	}
	check := func(name, agent string, keys ...string) {
		t.Helper()
	next:
		for _, d := range got[name] {
			if d["agent"] != agent {
				continue
			}
			for _, k := range keys {
				if _, ok := d[k]; !ok {
					continue next
				}
			}
			return
		}
		t.Errorf("no %s of %q with %v: %v\n%s", name, agent, keys, got[name], p.stderr())
	}
	check(schema.EventActctlStart, "", "pid", "agents", "webhooks")
	check(schema.EventActctlStop, "", "reason")
	check(schema.EventSessionStart, "api", "sessionId", "task")
	check(schema.EventSessionStart, "triage", "sessionId", "primary")
	check(schema.EventPromptBefore, "triage", "task", "source", "prompt")
	check(schema.EventPromptAfter, "api", "task", "source", "stopReason")
	check(schema.EventError, "triage", "task", "source", "error")
	check(schema.EventUserPrompt, "triage", "task", "source", "prompt")
	check("webhook:gh", "", "event", "delivery", "headers", "payload")
	if d := got[schema.EventActctlStop]; len(d) == 1 && d[0]["reason"] != "SIGTERM" {
		t.Errorf("actctl:stop reason %v", d[0]["reason"])
	}
}
