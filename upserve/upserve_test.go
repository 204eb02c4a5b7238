package upserve

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schema"
)

// load writes cfg as root's actant.cue and loads it.
func load(t *testing.T, root, home, cfg string) *schema.Config {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := schema.Load(schema.LoadOptions{Dir: root, Cwd: root, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// logLines collects a Server's log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// testServer is a Server of the agents names, its log in log.
func testServer(t *testing.T, names ...string) (*Server, *logLines) {
	t.Helper()
	log := &logLines{}
	s := New(Options{Names: names, Logf: log.logf, Warn: log.logf})
	t.Cleanup(s.Close)
	return s, log
}

const team = `package actant
backends: scripted: {modes: ["acp"], acp: {command: "agent"}, files: instructions: ["SCRIPTED.md"]}
templates: {
	svc: {backend: "scripted", archetype: "service"}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "x"}}
	tool: {backend: "scripted", archetype: "tool"}
}
agents: {
	api: template: "svc"
	triage: template: "emp"
	helper: template: "tool"
}
`

// TestSpecsOfConfig: up runs the autoStart agents it can hold (a service
// with no schedule, an employee with its schedule), each with its
// workspace, logs and record; named agents run whatever their
// autoStart; an agent up cannot hold is never a spec.
func TestSpecsOfConfig(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	cfg := load(t, root, home, team)
	s, _ := testServer(t)
	specs := s.cycleSpecs(cfg, nil)
	var names []string
	for _, sp := range specs {
		names = append(names, sp.Name+":"+sp.Archetype+":"+sp.LaunchMode)
		if sp.Root != root || sp.Workspace == "" || sp.LogsDir == "" || sp.Record == "" || sp.Digest == "" {
			t.Errorf("%s: spec %+v lacks its paths or digest", sp.Name, sp)
		}
		if (sp.Schedule != nil) != (sp.Archetype == "employee") {
			t.Errorf("%s: schedule %+v for archetype %s", sp.Name, sp.Schedule, sp.Archetype)
		}
	}
	if want := []string{"api:service:acp-service", "triage:employee:acp-background"}; !slices.Equal(names, want) {
		t.Errorf("up runs %v, want %v", names, want)
	}
	if got, want := Held(cfg, nil), []string{"api", "triage"}; !slices.Equal(got, want) {
		t.Errorf("Held %v, want %v", got, want)
	}
	named, _ := testServer(t, "triage")
	if sp := named.cycleSpecs(cfg, nil); len(sp) != 1 || sp[0].Name != "triage" {
		t.Errorf("up triage runs %+v", sp)
	}
	if err := CheckNames(cfg, []string{"helper"}); err == nil || !strings.Contains(err.Error(), "is not one `actctl up` runs (acp-service, acp-background)") {
		t.Errorf("up helper: %v", err)
	}
	if err := CheckNames(cfg, []string{"nobody"}); err == nil {
		t.Error("up nobody: no error")
	}
}

// TestUpDigestAcrossCycles: an agent's digest stays the same across
// cycles that change nothing of it (a cycle that rewrote its files
// restarted it on every later cycle), and changes when its MCP servers,
// launch env, its permission rule or its session plugins change it.
func TestUpDigestAcrossCycles(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	config := func(server, env, perms, rules string) *schema.Config {
		t.Helper()
		return load(t, root, home, `package actant
backends: scripted: {modes: ["acp"], acp: {command: "agent", env: {K: "`+env+`"}}, files: instructions: ["SCRIPTED.md"]}
mcpServers: fs: {command: "`+server+`"}
plugins: rules: {kind: "prefix", text: "`+rules+`"}
templates: emp: {backend: "scripted", archetype: "employee", mcpServers: ["fs"], permissions: "`+perms+`", plugins: ["rules"], schedule: heartbeat: {interval: "1h", prompt: "x"}}
agents: triage: template: "emp"
`)
	}
	s, _ := testServer(t)
	digest := func(cfg *schema.Config, changed map[string][]string) string {
		t.Helper()
		specs := s.cycleSpecs(cfg, changed)
		if len(specs) != 1 {
			t.Fatalf("specs %+v", specs)
		}
		return specs[0].Digest
	}
	cfg := config("fs-one", "v", "standard", "small commits")
	first := digest(cfg, map[string][]string{"triage": {"SCRIPTED.md"}})
	if d := digest(cfg, map[string][]string{}); d != first {
		t.Error("a cycle that changed nothing changed the digest")
	}
	for _, c := range []struct{ what, server, env, perms, rules string }{
		{"mcp server", "fs-two", "v", "standard", "small commits"},
		{"launch env", "fs-two", "w", "standard", "small commits"},
		{"permissions", "fs-two", "w", "readonly", "small commits"},
		{"plugins", "fs-two", "w", "readonly", "tests first"},
	} {
		before := digest(cfg, nil)
		cfg = config(c.server, c.env, c.perms, c.rules)
		if digest(cfg, map[string][]string{}) == before {
			t.Errorf("%s changed: the digest did not", c.what)
		}
	}
}

// TestUpOneHookBus: every config cycle sets the hooks of up's one bus
// (it built a bus per cycle and kept them all to wait for).
func TestUpOneHookBus(t *testing.T) {
	s, _ := testServer(t)
	cfg := func(on string) *schema.Config {
		return &schema.Config{Root: t.TempDir(), Hooks: map[string]schema.Hook{"h": {On: on, Run: &schema.HookRun{Command: "true"}}}}
	}
	s.setBus(cfg("process:stop"))
	first := s.bus.Load()
	for range 3 {
		s.setBus(cfg("process:stop"))
	}
	s.setBus(cfg("process:start"))
	if s.bus.Load() != first {
		t.Fatal("a new hooks bus for a config cycle")
	}
	if got := first.Matching(hooks.Event{Name: "process:start"}); len(got) != 1 {
		t.Errorf("the bus runs %v for process:start, want the last cycle's hook", got)
	}
	if got := first.Matching(hooks.Event{Name: "process:stop"}); len(got) != 0 {
		t.Errorf("the bus runs %v for process:stop, a hook of an earlier cycle", got)
	}
}
