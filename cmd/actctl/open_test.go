package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpen(t *testing.T) {
	dir, home := agentWorkspace(t)
	r := actctl(t, dir, home, "open", "helper")
	if r.Code != 0 {
		t.Fatalf("open: %s", r.Stderr)
	}
	out := filepath.Join(filepath.Dir(strings.TrimSuffix(strings.Split(string(mustRead(t, filepath.Join(dir, "actant.cue"))), "OUT: \"")[1], "\"")), "out")
	out = strings.SplitN(out, "\"", 2)[0]
	var got []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, _ = os.ReadFile(out); strings.Count(string(got), "\n") >= 2 {
			break
		}
	}
	if want := filepath.Join(dir, "proj") + "\n--ui\n"; string(got) != want {
		t.Errorf("open ran with %q, want %q", got, want)
	}
	// An agent whose archetype does not offer open is refused, saying
	// what it offers, and nothing starts.
	r = actctl(t, dir, home, "open", "worker")
	if want := `agent "worker" does not offer open: its archetype "employee" allows start, run, proxy`; r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("open worker: %d %s, want %s", r.Code, r.Stderr, want)
	}
	if err := os.RemoveAll(filepath.Join(dir, "proj")); err != nil {
		t.Fatal(err)
	}
	// A tool agent's workDir is the user's: actctl does not create it.
	r = actctl(t, dir, home, "open", "helper")
	if r.Code != 1 || !strings.Contains(r.Stderr, "agents.helper.workDir: workDir "+filepath.Join(dir, "proj")+" does not exist; actctl does not create it") {
		t.Errorf("open before apply: %d %s", r.Code, r.Stderr)
	}
}
