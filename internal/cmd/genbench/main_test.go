package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestWrite: the written workspace is valid, with the agents and skills
// asked for, and the schema file only when asked for.
func TestWrite(t *testing.T) {
	for _, c := range []struct {
		skills int
		schema bool
	}{{20, true}, {2, false}} {
		dir := filepath.Join(t.TempDir(), "bench")
		if err := write(dir, 3, c.skills, c.schema); err != nil {
			t.Fatal(err)
		}
		cfg, err := schema.LoadDir(dir, t.TempDir())
		if err != nil {
			t.Fatalf("load the written workspace: %v", err)
		}
		if len(cfg.Agents) != 3 || len(cfg.Skills) != c.skills {
			t.Errorf("%d agents, %d skills; want 3, %d", len(cfg.Agents), len(cfg.Skills), c.skills)
		}
		if _, err := os.Stat(filepath.Join(dir, "schema.cue")); (err == nil) != c.schema {
			t.Errorf("-schema=%v: schema.cue: %v", c.schema, err)
		}
	}
}
