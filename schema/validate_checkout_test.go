package schema

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckoutValid: a checkout loads with its fields.
func TestCheckoutValid(t *testing.T) {
	dir := writeWorkspace(t, map[string]string{"actant.cue": `package actant
templates: worker: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "x"}}
agents: w: {template: "worker", checkout: {url: "https://github.com/acme/app", ref: "main", dir: "src/app"}}
agents: v: {template: "worker", checkout: {url: "../app", ref: "v1.2.0"}}
`})
	cfg, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	if co := cfg.Agents["w"].Checkout; co == nil || *co != (Checkout{URL: "https://github.com/acme/app", Ref: "main", Dir: "src/app"}) {
		t.Errorf("w: %+v", co)
	}
	if co := cfg.Agents["v"].Checkout; co == nil || co.URL != "../app" || co.Dir != "" {
		t.Errorf("v: %+v", co)
	}
}

// TestCheckoutInvalid: each bad field is an error at its line and
// column, with its path.
func TestCheckoutInvalid(t *testing.T) {
	for _, tc := range []struct {
		template, checkout, want string
	}{
		{"worker", `{url: "ftp://x/y", ref: "main"}`, `actant.cue:4:49: agents.w.checkout.url: invalid checkout url "ftp://x/y": protocol "ftp"; give https://, ssh://, git@host:path, file:// or a local path`},
		{"worker", `{url: "-uhttps://x", ref: "main"}`, `actant.cue:4:49: agents.w.checkout.url: invalid checkout url "-uhttps://x": no spaces, control characters or leading '-'`},
		{"worker", `{url: "https://x/y", ref: "a..b"}`, `actant.cue:4:69: agents.w.checkout.ref: invalid checkout ref "a..b": give a branch, a tag or a commit`},
		{"worker", `{url: "https://x/y", ref: "-f"}`, `actant.cue:4:69: agents.w.checkout.ref: invalid checkout ref "-f"`},
		{"worker", `{url: "https://x/y", ref: "main", dir: "../up"}`, `actant.cue:4:82: agents.w.checkout.dir: invalid checkout dir "../up": give a directory inside the agent's workspace`},
		{"worker", `{url: "https://x/y", ref: "main", dir: "/abs"}`, `actant.cue:4:82: agents.w.checkout.dir: invalid checkout dir "/abs"`},
		{"worker", `{url: "https://x/y", ref: "main", dir: "logs/x"}`, `actant.cue:4:82: agents.w.checkout.dir: invalid checkout dir "logs/x": logs is actctl's`},
		{"helper", `{url: "https://x/y", ref: "main"}`, `actant.cue:4:33: agents.w.checkout: checkout is for employee agents (their tasks run in it); w has archetype "tool"`},
	} {
		dir := writeWorkspace(t, map[string]string{"actant.cue": `package actant
templates: worker: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "x"}}
templates: helper: {backend: "claude-code"}
agents: w: {template: "` + tc.template + `", checkout: ` + tc.checkout + `}
`})
		_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		if !errors.As(err, &ds) || len(ds.Errors()) != 1 {
			t.Errorf("%s: %v, want one diagnostic", tc.checkout, err)
			continue
		}
		if got := ds.Errors()[0].String(); !strings.Contains(got, tc.want) {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
