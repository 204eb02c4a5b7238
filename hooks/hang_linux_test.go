package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/model"
)

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestHangingHookKilledAtTimeout: Publish returns while a hook hangs; at
// its timeout the hook is killed with its process group (a child it
// started included) and reported as timed out. The hang is unbounded, so
// a tiny timeout is no timing assumption.
func TestHangingHookKilledAtTimeout(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "child.pid")
	b, res := newBus(t, map[string]model.Hook{
		// blocked waits for the test: if Publish waited for hooks, the test
		// would never get to release it.
		"blocked": {On: "idle", Run: &model.HookRun{Command: "/bin/sh", Args: []string{"-c", `read x < "$GATE"`}, Env: map[string]string{"GATE": fifo}, Timeout: "1h"}},
		"hangs": {On: "idle", Run: &model.HookRun{Command: "/bin/sh", Args: []string{"-c", `sleep 1000 & echo $! > "$PIDS"; wait`},
			Env: map[string]string{"PIDS": pidFile}, Timeout: "1s"}},
	}, nil)
	b.Publish(Event{Name: "idle", Agent: "e"})
	if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.Wait()
	if r := res.all["blocked"]; r.Err != nil {
		t.Errorf("blocked: %+v", r)
	}
	r := res.all["hangs"]
	if r.Err == nil || !strings.Contains(r.Err.Error(), "timed out after 1s") {
		t.Fatalf("hangs: %+v", r)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	// The orphaned sleep is reaped by init, not by us: poll for it.
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for alive(child) {
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d survived its timeout", child)
		}
		<-tick.C
	}
}

// TestContextEndsHooks: when the bus's context ends (actctl shutting
// down), a running hook is killed at once, not at its timeout.
func TestContextEndsHooks(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	res := &results{}
	b, err := New(map[string]model.Hook{
		"long": {On: "idle", Run: &model.HookRun{Command: "/bin/sh", Args: []string{"-c", `echo up > "$READY"; sleep 1000`}, Env: map[string]string{"READY": ready}, Timeout: "1h"}},
	}, Options{Dir: dir, Report: res.add, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	b.Publish(Event{Name: "idle", Agent: "e"})
	if _, err := os.ReadFile(ready); err != nil { // blocks until the hook runs
		t.Fatal(err)
	}
	cancel()
	b.Wait()
	if r := res.all["long"]; r.Err == nil || !strings.Contains(r.Err.Error(), "cancelled") {
		t.Errorf("long: %+v", r)
	}
}
