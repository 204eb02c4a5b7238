package tasklog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSessionLogs: a session log is a file of its own beside the task
// files, named by its UTC start and name; a second one of the same name
// and second takes the next free name instead of appending; Sessions
// lists them oldest first and SessionFile finds one by name or "last";
// a bad name is refused and nothing is written; Remove removes them
// with the task logs.
func TestSessionLogs(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 29, 13, 0, 0, 0, time.FixedZone("x", 3600))
	if _, err := BeginSession(dir, at, "../x-1"); err == nil || !strings.Contains(err.Error(), "bad name") {
		t.Fatalf("a bad name: %v", err)
	}
	if _, err := os.Stat(SessionsDir(dir)); !os.IsNotExist(err) {
		t.Fatalf("a bad name wrote %s: %v", SessionsDir(dir), err)
	}
	var paths []string
	for _, line := range []string{`{"a":1}`, `{"b":2}`} {
		w, err := BeginSession(dir, at, "proxy-7")
		if err != nil {
			t.Fatal(err)
		}
		w.Message([]byte(line + "\n"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		w.Message([]byte(`{"late":true}`)) // after Close: dropped
		paths = append(paths, w.Path())
	}
	want := []string{"20261129T120000Z-proxy-7.jsonl", "20261129T120000Z-proxy-7-2.jsonl"}
	names, err := Sessions(dir)
	if err != nil || strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("Sessions: %q %v", names, err)
	}
	if b, _ := os.ReadFile(paths[0]); string(b) != "{\"a\":1}\n" {
		t.Errorf("the first log: %q", b)
	}
	for _, c := range []struct{ name, want string }{{"last", want[1]}, {"20261129T120000Z-proxy-7", want[0]}, {want[1], want[1]}} {
		if p, err := SessionFile(dir, c.name); err != nil || p != filepath.Join(SessionsDir(dir), c.want) {
			t.Errorf("SessionFile %s: %s %v", c.name, p, err)
		}
	}
	if _, err := SessionFile(dir, "nope"); err == nil || !strings.Contains(err.Error(), "no session log nope.jsonl") {
		t.Errorf("an unknown name: %v", err)
	}
	if err := Remove(dir); err != nil { // pruning the agent
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the session logs outlive Remove: %v", err)
	}
}

// TestSessionLogsKept: beginning a session log removes the oldest beyond
// KeepSessions, oldest first, and never the one it begins (even one
// whose start sorts before the others: a clock set back).
func TestSessionLogsKept(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC)
	for i := range KeepSessions + 5 {
		w, err := BeginSession(dir, at.Add(time.Duration(i)*time.Second), "proxy-1")
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	names, err := Sessions(dir)
	if err != nil || len(names) != KeepSessions || names[0] != "20261129T130005Z-proxy-1.jsonl" {
		t.Fatalf("%d kept, oldest %q (%v); want %d, the oldest 5 removed", len(names), names[0], err, KeepSessions)
	}
	w, err := BeginSession(dir, at.Add(-time.Hour), "proxy-2")
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := os.Stat(w.Path()); err != nil {
		t.Errorf("the log just begun was removed: %v", err)
	}
	if names, _ = Sessions(dir); len(names) != KeepSessions+1 || names[1] != "20261129T130005Z-proxy-1.jsonl" {
		t.Errorf("after a log that sorts first: %d kept, second %q", len(names), names[1])
	}
}
