package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// firstDayWorkspace is a workspace with one tool agent, dev.
func firstDayWorkspace(t *testing.T) (dir, home string) {
	t.Helper()
	dir, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant
templates: t: {backend: "claude-code", permissions: "readonly"}
agents: dev: template: "t"
`})
	return dir, home
}

// TestFirstDayKubectlHabits: attach without --pid, and a prompt typed
// after AGENT (singular kinds, `describe agent NAME` and "--" are
// testdata/script/first_day_kubectl_habits.txtar).
func TestFirstDayKubectlHabits(t *testing.T) {
	dir, home := firstDayWorkspace(t)
	r := actctl(t, dir, home, "attach", "dev")
	if want := `actctl: required flag "pid" not set`; r.Code != 2 || strings.TrimSpace(r.Stderr) != want {
		t.Errorf("attach without --pid: exit %d %q, want 2 and %q", r.Code, r.Stderr, want)
	}
	r = actctl(t, dir, home, "run", "dev", "fix the tests")
	if want := `actctl: run: the prompt goes in -p: actctl run dev -p "fix the tests"`; r.Code != 2 || strings.TrimSpace(r.Stderr) != want {
		t.Errorf("run dev PROMPT: exit %d %q, want 2 and %q", r.Code, r.Stderr, want)
	}
}

// TestFirstDayOutputYAML: -o yaml is -o json in YAML (same fields, same
// values) wherever -o json is objects; the JSON-lines streams refuse it.
func TestFirstDayOutputYAML(t *testing.T) {
	dir, home := firstDayWorkspace(t)
	for _, args := range [][]string{{"get", "agents"}, {"describe", "dev"}, {"status"}, {"version"}, {"get", "templates"}} {
		j := actctl(t, dir, home, append(args, "-o", "json")...)
		y := actctl(t, dir, home, append(args, "-o", "yaml")...)
		var fromJSON, fromYAML any
		if err := json.Unmarshal([]byte(j.Stdout), &fromJSON); err != nil {
			t.Fatalf("%v -o json: %v\n%s", args, err, j.Stdout)
		}
		if err := yaml.Unmarshal([]byte(y.Stdout), &fromYAML); err != nil || y.Code != j.Code {
			t.Fatalf("%v -o yaml: exit %d, %v\n%s%s", args, y.Code, err, y.Stdout, y.Stderr)
		}
		if strings.HasPrefix(strings.TrimSpace(y.Stdout), "{") || strings.HasPrefix(strings.TrimSpace(y.Stdout), "[") {
			t.Errorf("%v -o yaml is JSON:\n%s", args, y.Stdout)
		}
		if !reflect.DeepEqual(normalizeNumbers(fromJSON), normalizeNumbers(fromYAML)) {
			t.Errorf("%v: -o yaml differs from -o json:\n%s\n%s", args, y.Stdout, j.Stdout)
		}
	}
	r := actctl(t, dir, home, "run", "dev", "-p", "x", "-o", "yaml")
	if want := "actctl: -o yaml: run prints a stream of JSON lines as received (docs/json.md): use -o json"; r.Code != 2 || strings.TrimSpace(r.Stderr) != want {
		t.Errorf("run -o yaml: exit %d %q, want 2 and %q", r.Code, r.Stderr, want)
	}
}

// normalizeNumbers makes the numbers of a decoded document comparable
// across JSON (float64) and YAML (int), and YAML's maps JSON's.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	case int:
		return float64(x)
	}
	return v
}

// TestFirstDayUnknownAgentSame: every command that takes an agent says
// the same words for a name that is none; here those that cannot run in
// a script (describe, apply, diff, get and resolve are
// testdata/script/first_day_unknown_agent.txtar).
func TestFirstDayUnknownAgentSame(t *testing.T) {
	dir, home := firstDayWorkspace(t)
	want := `actctl: unknown agent "dve" (did you mean "dev"?)`
	for _, args := range [][]string{
		{"status", "dve"}, {"logs", "dve"}, {"run", "dve", "-p", "x"}, {"open", "dve"},
	} {
		r := actctl(t, dir, home, args...)
		if r.Code == 0 || strings.TrimSpace(r.Stderr) != want {
			t.Errorf("%v: exit %d, stderr %q, want %q", args, r.Code, r.Stderr, want)
		}
	}
}

// TestFirstDayApplyLastLine: apply's last line says "no changes" only
// when nothing was written and nothing is left different: a kept drift
// and a rewritten actant.lock are said.
func TestFirstDayApplyLastLine(t *testing.T) {
	dir, home := firstDayWorkspace(t)
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %s", r.Stderr)
	}
	p := filepath.Join(dir, ".claude", "settings.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{".claude/settings.json": strings.Replace(string(b), `"plan"`, `"default"`, 1)})
	r := actctl(t, dir, home, "apply")
	if want := "no agent file changed; 1 drifted file kept (apply --force overwrites it, with a backup)\n"; r.Code != 0 || !strings.HasSuffix(r.Stdout, want) {
		t.Errorf("apply over drift: exit %d\n%s%s\nwant last line %q", r.Code, r.Stdout, r.Stderr, want)
	}

	repo := taggedRepo(t, "v1", "v2")
	dir2, _ := firstDayWorkspace(t)
	hubLine := func(tag string) string {
		return fmt.Sprintf("hub: shared: {url: %q, ref: tag: %q}\n", filepath.ToSlash(repo), tag)
	}
	cue := "package actant\ntemplates: t: {backend: \"claude-code\", permissions: \"readonly\"}\nagents: dev: template: \"t\"\n"
	writeFiles(t, dir2, map[string]string{"actant.cue": cue + hubLine("v1")})
	if r := actctl(t, dir2, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %s", r.Stderr)
	}
	writeFiles(t, dir2, map[string]string{"actant.cue": cue + hubLine("v2")})
	r = actctl(t, dir2, home, "apply")
	if want := "no agent file changed; actant.lock updated"; r.Code != 0 || !strings.Contains(r.Stdout, want) || strings.Contains(r.Stdout, "no changes") {
		t.Errorf("apply of a new tag: exit %d\n%s%s\nwant %q", r.Code, r.Stdout, r.Stderr, want)
	}
}

// `actctl --version` and `-v` are testdata/script/version_flag.txtar.
