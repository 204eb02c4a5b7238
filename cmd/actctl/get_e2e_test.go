package main

import (
	"encoding/json"
	"testing"
)

// getConfig has commands (one listed by two templates, one by none) and
// hooks (a run hook with every field, a prompt hook for some agents).
const getConfig = `package actant

commands: "fix-issue": {description: "Fix a GitHub issue", content: "Fix issue #$ARGUMENTS."}
commands: lint: content: "Run the linter."
templates: dev: {backend: "claude-code", commands: ["fix-issue"]}
templates: ops: {backend: "codex", commands: ["fix-issue"]}
agents: dev: template: "dev"
agents: ops: template: "ops"
hooks: notify: {on: "agent:created", run: {command: "/bin/echo", args: ["made", "it"], env: WHO: "me", timeout: "5s"}}
hooks: review: {on: "task:done", agents: ["dev"], prompt: {agent: "ops", text: "Review what {{event.agent}} did."}}
hooks: bare: {on: "agent:destroyed", run: command: "true"}
`

// TestGetCommandsAndHooks: `get commands` and `get hooks` list them, with
// -o json, as the shapes docs/json.md gives (every key
// the output has is documented, every documented key is in the output;
// lists are never null) (issue #22 item 20). The tables are
// testdata/script/get_commands_hooks.txtar.
func TestGetCommandsAndHooks(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, getConfig)
	for _, tc := range []struct{ kind, json string }{
		{"commands",
			`[{"name":"fix-issue","description":"Fix a GitHub issue","content":"Fix issue #$ARGUMENTS.","usedBy":["dev","ops"]},` +
				`{"name":"lint","content":"Run the linter.","usedBy":[]}]`},
		{"hooks",
			`[{"name":"bare","on":"agent:destroyed","run":{"command":"true","args":[]},"origin":"actant.cue"},` +
				`{"name":"notify","on":"agent:created","run":{"command":"/bin/echo","args":["made","it"],"env":{"WHO":"me"},"timeout":"5s"},"origin":"actant.cue"},` +
				`{"name":"review","on":"task:done","agents":["dev"],"prompt":{"agent":"ops","text":"Review what {{event.agent}} did."},"origin":"actant.cue"}]`},
	} {
		j := actctl(t, dir, "", "get", tc.kind, "-o", "json")
		var got any
		if err := json.Unmarshal([]byte(j.Stdout), &got); err != nil || j.Code != 0 {
			t.Fatalf("get %s -o json: exit %d, %v\n%s%s", tc.kind, j.Code, err, j.Stdout, j.Stderr)
		}
		compact, _ := json.Marshal(got)
		var want any
		json.Unmarshal([]byte(tc.json), &want)
		wantCompact, _ := json.Marshal(want)
		if string(compact) != string(wantCompact) {
			t.Errorf("get %s -o json:\n%s\nwant:\n%s", tc.kind, compact, wantCompact)
		}
		checkDocumented(t, "get "+tc.kind, got)
	}
}
