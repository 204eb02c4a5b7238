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
	r = actctl(t, dir, home, "open", "worker")
	if r.Code != 1 || !strings.Contains(r.Stderr, "does not exist; run `actctl apply worker` first") {
		t.Errorf("open before apply: %d %s", r.Code, r.Stderr)
	}
}
