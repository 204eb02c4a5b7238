package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopilotHooksE2E: a Copilot agent's hooks (settings: copilot:
// {version, hooks}) reach .github/hooks/actctl.json, one of the
// repository hook files the Copilot CLI and cloud agent load
// (.github/hooks/*.json, docs/formats.md "copilot"); the user's own hook
// file stays, a re-apply writes nothing, the prune leaves the user's
// bytes; a settings key other than version and hooks is warned about,
// since Copilot has no settings file (issue #23 item 13, hooks).
func TestCopilotHooksE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
templates: c: {backend: "copilot", settings: copilot: {version: 1, hooks: preToolUse: [{type: "command", bash: "./check.sh", timeoutSec: 10}], theme: "dark"}}
agents: {` + agents + `}
`
	}
	mine := "{\n  \"version\": 1,\n  \"hooks\": {\"sessionStart\": [{\"type\": \"command\", \"bash\": \"./mine.sh\"}]}\n}\n"
	runArtifact(t, artifactCase{
		user:    map[string]string{".github/hooks/mine.json": mine},
		with:    cfg(`c: template: "c"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			var v struct {
				Version int
				Hooks   map[string][]struct {
					Type, Bash string
					TimeoutSec int
				}
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".github/hooks/actctl.json"))), &v); err != nil {
				t.Fatal(err)
			}
			if h := v.Hooks["preToolUse"]; v.Version != 1 || len(v.Hooks) != 1 || len(h) != 1 || h[0].Type != "command" || h[0].Bash != "./check.sh" || h[0].TimeoutSec != 10 {
				t.Errorf("hooks: %+v", v)
			}
			if got := read(t, filepath.Join(dir, ".github/hooks/mine.json")); got != mine {
				t.Errorf("the user's hook file:\n%s", got)
			}
			if out := r.Stdout + r.Stderr; !strings.Contains(out, "theme") {
				t.Errorf("no warning about theme:\n%s", out)
			}
		},
	})
}

// TestDevinHooksE2E: a Devin agent's hooks (settings: devin: EVENT:
// [...], the event names Devin CLI documents) reach .devin/hooks.v1.json,
// whose top-level keys are the events, and the other settings keys still
// reach .devin/config.json; the user's own event in the hooks file stays,
// a re-apply writes nothing, the prune leaves the user's bytes (issue #23
// item 15, hooks).
func TestDevinHooksE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
templates: d: {backend: "devin", settings: devin: {PreToolUse: [{matcher: "exec", hooks: [{type: "command", command: "./check.sh"}]}], theme: "dark"}}
agents: {` + agents + `}
`
	}
	mine := "{\n  \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\"}]}]\n}\n"
	runArtifact(t, artifactCase{
		user:    map[string]string{".devin/hooks.v1.json": mine},
		with:    cfg(`d: template: "d"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			var v map[string][]struct {
				Matcher string
				Hooks   []struct{ Type, Command string }
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".devin/hooks.v1.json"))), &v); err != nil {
				t.Fatal(err)
			}
			if h := v["PreToolUse"]; len(h) != 1 || h[0].Matcher != "exec" || len(h[0].Hooks) != 1 || h[0].Hooks[0].Command != "./check.sh" {
				t.Errorf("hooks: %+v", v)
			}
			if h := v["Stop"]; len(h) != 1 || h[0].Hooks[0].Command != "./mine.sh" {
				t.Errorf("the user's hook: %+v", v)
			}
			if got := read(t, filepath.Join(dir, ".devin/config.json")); !strings.Contains(got, `"theme": "dark"`) || strings.Contains(got, "PreToolUse") {
				t.Errorf("config.json:\n%s", got)
			}
		},
	})
}

// TestKiroHooksE2E: a Kiro agent's hooks (settings: kiro: {version,
// hooks}) reach .kiro/hooks/actctl.json, one of the workspace hook files
// Kiro (IDE 1.x, CLI v3) loads from .kiro/hooks/; the user's own hook
// file stays, a re-apply writes nothing, the prune leaves the user's
// bytes (issue #23 item 15, hooks).
func TestKiroHooksE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
templates: k: {backend: "kiro", settings: kiro: {version: "v1", hooks: [{name: "lint-on-save", trigger: "PostFileSave", matcher: "\\.go$", action: {type: "command", command: "go vet ./..."}}]}}
agents: {` + agents + `}
`
	}
	mine := "{\"version\": \"v1\", \"hooks\": [{\"name\": \"mine\", \"trigger\": \"Stop\", \"action\": {\"type\": \"command\", \"command\": \"./mine.sh\"}}]}\n"
	runArtifact(t, artifactCase{
		user:    map[string]string{".kiro/hooks/mine.json": mine},
		with:    cfg(`k: template: "k"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			var v struct {
				Version string
				Hooks   []struct {
					Name, Trigger, Matcher string
					Action                 struct{ Type, Command string }
				}
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".kiro/hooks/actctl.json"))), &v); err != nil {
				t.Fatal(err)
			}
			if v.Version != "v1" || len(v.Hooks) != 1 || v.Hooks[0].Trigger != "PostFileSave" || v.Hooks[0].Matcher != `\.go$` || v.Hooks[0].Action.Command != "go vet ./..." {
				t.Errorf("hooks: %+v", v)
			}
			if got := read(t, filepath.Join(dir, ".kiro/hooks/mine.json")); got != mine {
				t.Errorf("the user's hook file:\n%s", got)
			}
		},
	})
}
