package schema

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const webhooksBase = hooksBase + `webhooks: gh: {secretEnv: "GH_SECRET", signature: "github", events: ["issues", "push"]}
webhooks: "ci-2": {secretEnv: "CI_SECRET", signature: "hmac-sha256", header: "X-Ci-Signature"}
`

func TestWebhooksValid(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": webhooksBase + `
hooks: triage: {on: "webhook:gh", prompt: {agent: "reviewer", text: "New issue: {{event.data.payload.issue.title}}"}}
hooks: ci: {on: "webhook:ci-2", run: command: "true"}
`})
	w := cfg.Webhooks["gh"]
	if w.SecretEnv != "GH_SECRET" || w.Signature != SignatureGitHub || strings.Join(w.Events, ",") != "issues,push" {
		t.Errorf("webhook gh %+v", w)
	}
	if w := cfg.Webhooks["ci-2"]; w.Header != "X-Ci-Signature" || w.Signature != SignatureHMAC {
		t.Errorf("webhook ci-2 %+v", w)
	}
	if cfg.Hooks["triage"].On != "webhook:gh" {
		t.Errorf("hook %+v", cfg.Hooks["triage"])
	}
}

// TestWebhooksInvalid: every problem is an error at its field, and
// nothing is written.
func TestWebhooksInvalid(t *testing.T) {
	for _, tc := range []struct{ cue, want string }{
		{`webhooks: "Bad.Name": {secretEnv: "S", signature: "github"}`,
			`actant.cue:5:11: webhooks."Bad.Name": invalid webhook name "Bad.Name": a webhook's name is its URL path segment`},
		{`webhooks: gh: {secretEnv: "S", signature: "sha1"}`,
			`webhooks.gh.signature`},
		{`webhooks: gh: {secretEnv: "", signature: "github"}`,
			`webhooks.gh.secretEnv`},
		{`webhooks: gh: {signature: "github"}`,
			`actant.cue:5:11: webhooks.gh: missing required field "secretEnv"`},
		{`webhooks: gh: {secretEnv: "S", signature: "github", header: "X-Sig"}`,
			`actant.cue:5:61: webhooks.gh.header: header is for signature "hmac-sha256"`},
		{`webhooks: gh: {secretEnv: "S", signature: "github"}
hooks: x: {on: "webhook:hg", run: command: "true"}`,
			`actant.cue:6:16: hooks.x.on: unknown webhook "hg" in event "webhook:hg" (did you mean "webhook:gh"?)`},
		{`hooks: x: {on: "webhook:gh", run: command: "true"}`,
			`actant.cue:5:16: hooks.x.on: unknown webhook "gh" in event "webhook:gh"; declare it under webhooks`},
		{`webhooks: gh: {secretEnv: "S", signature: "github"}
hooks: x: {on: "webhook:gh", agents: ["writer"], run: command: "true"}`,
			`hooks.x.agents: webhook:gh concerns no agent`},
		// An empty list would take every event, as no list does (new-user
		// review item 6).
		{`webhooks: gh: {secretEnv: "S", signature: "github", events: []}`,
			`actant.cue:5:61: webhooks.gh.events: an empty list is not "no event": omit events to take every event, or list the event types to take`},
		{`webhook: gh: {secretEnv: "S", signature: "github"}`,
			`unknown top-level field "webhook" (did you mean "webhooks"?)`},
	} {
		dir := writeWorkspace(t, map[string]string{"actant.cue": hooksBase + tc.cue + "\n"})
		_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		if !errors.As(err, &ds) {
			t.Errorf("%s: err = %v, want diagnostics", tc.cue, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\ngot  %v\nwant %s", tc.cue, err, tc.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s: the workspace has %d entries, want actant.cue alone", tc.cue, len(ents))
		}
	}
}

// TestEventsOnce: the events validation accepts are the table's, and
// docs/runtime.md lists every one of them with its data.
func TestEventsOnce(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "runtime.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, e := range Events {
		if row := eventRow(e); !strings.Contains(doc, row+"\n") {
			t.Errorf("docs/runtime.md has no row\n%s", row)
		}
		if e.Data == "" || e.From == "" {
			t.Errorf("event %s is not documented in Events", e.Name)
		}
	}
	for _, n := range HookEvents {
		cfg := mustLoad(t, map[string]string{"actant.cue": hooksBase + `hooks: x: {on: "` + n + `", run: command: "true"}` + "\n"})
		if cfg.Hooks["x"].On != n {
			t.Errorf("event %s not accepted", n)
		}
	}
}

// eventRow is e's row in docs/runtime.md's table of events: name, agent,
// publisher, data.
func eventRow(e EventSpec) string {
	agent := "no"
	if e.Agent {
		agent = "yes"
	}
	return fmt.Sprintf("| `%s` | %s | %s | %s |", e.Name, agent, e.From, e.Data)
}
