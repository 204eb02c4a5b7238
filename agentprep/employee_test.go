package agentprep

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
)

// TestEmployee: task's agent is the declared employee, materialized
// where it lives (never a copy), marked stopped by Cleanup; other
// archetypes and unknown agents are refused, writing nothing.
func TestEmployee(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	cue := chooseCue + `templates: emp: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "x"}}
agents: triage: template: "emp"
`
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(cue), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.Load(schema.LoadOptions{Dir: root, Cwd: root, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, err string }{
		{"helper", "task: agent helper has archetype \"tool\": task runs an employee's tasks; for one turn with it use `actctl run helper -p TEXT`"},
		// A service offers no run: the hint names what it offers (issue
		// 32 item 14).
		{"server", "task: agent server has archetype \"service\": task runs an employee's tasks; it offers start, proxy: for one turn with it use `actctl prompt server -p TEXT` while `actctl up` runs it"},
		{"nobody", `unknown agent "nobody"`},
	} {
		_, err := EmployeeAgent(cfg, tc.name)
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), tc.err) || (tc.name != "nobody") != errors.As(err, &ue) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
	if fs := files(t, root, home); len(fs) != 1 {
		t.Fatalf("refusals wrote: %v", fs)
	}
	r, err := EmployeeAgent(cfg, "triage")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Employee(context.Background(), cfg, r, Options{Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if p.Agent.Name != "triage" || p.Ephemeral || p.Agent.Dir != filepath.Join(home, "instances", "triage") || !exists(filepath.Join(p.Agent.Dir, "CLAUDE.md")) {
		t.Errorf("prepared %s in %s (ephemeral %v)", p.Agent.Name, p.Agent.Dir, p.Ephemeral)
	}
	// The task's backend ran: its record says so until Cleanup.
	if err := p.Running(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	p.Cleanup()
	rec, err := runrecord.Read(runrecord.Path(r))
	if err != nil || rec.Live() {
		t.Errorf("after Cleanup the record says live: %+v, %v", rec, err)
	}
}
