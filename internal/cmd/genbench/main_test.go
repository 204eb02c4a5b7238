package main

import (
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestWrite: the written workspace is valid, with the agents asked for.
func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bench")
	if err := write(dir, 3); err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.LoadDir(dir, t.TempDir())
	if err != nil {
		t.Fatalf("load the written workspace: %v", err)
	}
	if len(cfg.Agents) != 3 {
		t.Errorf("%d agents, want 3", len(cfg.Agents))
	}
}
