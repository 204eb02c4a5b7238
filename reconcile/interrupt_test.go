package reconcile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

func interruptConfig(t *testing.T) *schema.Config {
	t.Helper()
	root := t.TempDir()
	src := `package actant
skills: {a: content: "a", b: content: "b", c: content: "c"}
templates: t: {backend: "claude-code", skills: ["a", "b", "c"]}
agents: x: template: "t"
`
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.LoadDir(root, filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestApplyInterruptedBeforeWriting: a cancelled context (SIGINT during
// the hub sync or the planning) stops apply before its first write.
func TestApplyInterruptedBeforeWriting(t *testing.T) {
	cfg := interruptConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Apply(ctx, cfg, Options{})
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("Apply = %v, want interrupted before writing", err)
	}
	entries, _ := os.ReadDir(cfg.Root)
	if len(entries) != 1 {
		t.Errorf("interrupted apply left %v", entries)
	}
}

// TestApplyInterruptedMidway: a context cancelled between two writes
// stops the run there, with the journal in place; the next apply finishes
// the job and the one after has nothing to do.
func TestApplyInterruptedMidway(t *testing.T) {
	cfg := interruptConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writes := 0
	crash := func(step string) bool {
		if strings.HasPrefix(step, "write ") {
			if writes++; writes == 2 {
				cancel()
			}
		}
		return false
	}
	_, err := Apply(ctx, cfg, Options{crash: crash})
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "1 of ") || !strings.Contains(err.Error(), "run apply again to finish") {
		t.Fatalf("Apply = %v, want interrupted after one write", err)
	}
	if _, err := os.Stat(metaPath(cfg.Root, PendingFile)); err != nil {
		t.Fatalf("no journal after an interrupted apply: %v", err)
	}
	res, err := Apply(context.Background(), cfg, Options{})
	if err != nil || !res.Recovered {
		t.Fatalf("apply after the interruption: recovered=%v err=%v", res != nil && res.Recovered, err)
	}
	res, err = Apply(context.Background(), cfg, Options{})
	if err != nil || res.Counts.Changed != 0 {
		t.Fatalf("third apply: %+v %v", res, err)
	}
}
