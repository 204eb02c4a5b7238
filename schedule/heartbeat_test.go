package schedule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSeedHeartbeatNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	created, err := SeedHeartbeat(dir, "check the inbox")
	if err != nil || !created {
		t.Fatalf("first seed: %v %v", created, err)
	}
	p := filepath.Join(dir, HeartbeatFile)
	if b, _ := os.ReadFile(p); string(b) != "check the inbox" {
		t.Fatalf("seeded %q", b)
	}
	// The agent rewrites it; a later seed (a new seed text too) keeps it.
	if err := os.WriteFile(p, []byte("state: 3 PRs reviewed"), 0o644); err != nil {
		t.Fatal(err)
	}
	created, err = SeedHeartbeat(dir, "something else")
	if err != nil || created {
		t.Fatalf("second seed: %v %v", created, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "state: 3 PRs reviewed" {
		t.Errorf("overwritten: %q", b)
	}
	if _, err := SeedHeartbeat(filepath.Join(dir, "missing"), "x"); err == nil {
		t.Error("seeding into a missing directory should fail")
	}
	if !strings.Contains(HeartbeatPrompt, HeartbeatFile) || !strings.Contains(HeartbeatPrompt, "rewrite") {
		t.Errorf("heartbeat prompt does not point at %s: %q", HeartbeatFile, HeartbeatPrompt)
	}
}
