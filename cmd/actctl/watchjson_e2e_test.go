package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatchJSONNoNullLists: a cycle of `apply --watch -o json` (and so of
// `up -o json`) that changes nothing prints its result's actions as [],
// as `apply -o json` does (docs/json.md: no list is null); it printed
// "actions": null.
func TestWatchJSONNoNullLists(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, "package actant\ntemplates: t: backend: \"claude-code\"\nagents: a: template: \"t\"\n")
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %d %s", r.Code, r.Stderr)
	}
	w := startWatch(t, dir, home, "-o", "json")
	eventually(t, "the first cycle", func() bool { return len(w.cycles(t)) > 0 }, w)
	line, _, _ := strings.Cut(w.stdout.String(), "\n")
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	if p := findNull(v, "apply --watch"); p != "" {
		t.Errorf("apply --watch -o json: %s is null\n%s", p, line)
	}
}
