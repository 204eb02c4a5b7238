package main

import (
	"strings"
	"testing"
)

// TestVendoredSchema: `actctl schema > schema.cue` beside the config (for
// editor completion) loads with the embedded copy, and overrides still win.
func TestVendoredSchema(t *testing.T) {
	dir := t.TempDir()
	if r := actctl(t, dir, "", "init"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	r := actctl(t, dir, "", "schema")
	writeFiles(t, dir, map[string]string{
		"schema.cue": r.Stdout,
		"more.cue":   "package actant\nbackends: \"claude-code\": acp: command: \"/opt/x\"\n",
	})
	r = actctl(t, dir, "", "-o", "json", "resolve", "assistant")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"command": "/opt/x"`) {
		t.Fatalf("resolve with a vendored schema: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
}
