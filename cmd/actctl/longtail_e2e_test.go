package main

import (
	"strings"
	"testing"
)

// TestGetBackendsLongTail: `actctl get backends` lists Devin Desktop,
// Cline, Kiro, Amp, Qwen Code, Goose, Kilo Code and Junie with their ACP
// commands and instruction files.
func TestGetBackendsLongTail(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "package actant\n")
	r := actctl(t, dir, "", "get", "backends")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, want := range []string{"devin acp", "cline --acp", "kiro-cli acp", "amp-acp", "qwen --acp", "QWEN.md", "goose acp", "kilo acp", "junie --acp=true"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("get backends lacks %q:\n%s", want, r.Stdout)
		}
	}
}
