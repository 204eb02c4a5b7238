package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartModeChecked: start means what it says (docs/runtime.md,
// "actctl up"). An employee whose archetype leaves start out is refused
// by `up NAME` and `actctl task` (nothing written) and by `actctl start` (up keeps not
// holding it), each naming the modes it offers; a tool agent is refused
// naming its launch mode; describe shows the modes each agent truly
// offers (a tool agent's start, which no command serves, left out); an
// archetype with autoStart but without start is a validate error at its
// position. On the old code up started the employee (issue 32 item 5),
// and `actctl task` ran it.
func TestStartModeChecked(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	cfg := `package actant
` + scriptedBackend(t, "") + `
archetypes: employee: {interactionModes: ["run", "proxy"], autoStart: false}
templates: {
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}}
	svc: {backend: "scripted", archetype: "service"}
	tl: backend: "scripted"
}
agents: {triage: template: "emp", api: template: "svc", helper: template: "tl"}
`
	writeConfigTB(t, root, cfg)
	for agent, modes := range map[string]string{"triage": "run, proxy", "api": "start, proxy", "helper": "chat, run, proxy"} {
		if r := actctl(t, root, home, "describe", agent); r.Code != 0 || !strings.Contains(r.Stdout, "\nModes:      "+modes+"\n") {
			t.Errorf("describe %s: exit %d, want Modes: %s\n%s%s", agent, r.Code, modes, r.Stdout, r.Stderr)
		}
	}

	const why = `agent "triage" does not offer start: its archetype "employee" allows run, proxy, so it offers run, proxy; to allow start, add it to`
	for _, tc := range []struct{ agent, why string }{
		{"triage", why},
		{"helper", `agent "helper" does not offer start: its launch mode "direct" is not one ` + "`actctl up`" + ` runs (acp-service, acp-background), so it offers chat, run, proxy`},
	} {
		r := actctl(t, root, home, "up", tc.agent)
		if r.Code != 1 || !strings.Contains(r.Stderr, tc.why) {
			t.Fatalf("up %s: exit %d, want 1 and %q:\n%s", tc.agent, r.Code, tc.why, r.Stderr)
		}
	}
	// task runs one of up's tasks: it serves start too.
	if r := actctl(t, root, home, "task", "triage"); r.Code != 1 || !strings.Contains(r.Stderr, "task: "+why) {
		t.Errorf("task triage: exit %d, want 1 and %q:\n%s", r.Code, "task: "+why, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(root, ".actant")); !os.IsNotExist(err) {
		t.Errorf("a refused up wrote .actant: %v", err)
	}

	p := startUp(t, root, home)
	p.started("api")
	if r := actctl(t, root, home, "start", "triage"); r.Code != 1 || !strings.Contains(r.Stderr, why) {
		t.Errorf("start triage: exit %d, want 1 and %q:\n%s%s", r.Code, why, r.Stdout, r.Stderr)
	}
	if st := upStatus(t, root, home)["triage"]; st.Process != nil && st.Process.Up != nil {
		t.Errorf("up holds triage: %+v", st.Process.Up)
	}
	if log := p.stop(); strings.Contains(log, "triage: process:start") {
		t.Errorf("up started triage:\n%s", log)
	}

	// autoStart without start: refused where it is written.
	writeConfigTB(t, root, strings.Replace(cfg, `, autoStart: false}`, `}`, 1))
	r := actctl(t, root, home, "validate")
	line := strings.Count(cfg[:strings.Index(cfg, "archetypes:")], "\n") + 1
	bad := fmt.Sprintf(`actant.cue:%d:42: archetypes.employee.interactionModes: archetype "employee" has autoStart, but its interactionModes (run, proxy) leave out start, which `+"`actctl up` and `actctl start`"+` need; add "start" to them, or set autoStart: false`, line)
	if r.Code != 1 || !strings.Contains(r.Stderr, bad) {
		t.Errorf("validate: exit %d, want 1 and\n%s\n%s", r.Code, bad, r.Stderr)
	}
}
