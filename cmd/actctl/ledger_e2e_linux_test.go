package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRunIgnoresClonedLedger: a process ledger committed under
// .actant/run, naming a process with its real start time, arrives with a
// clone; `actctl run` there never reads it: it names the file once as
// ignored, blames no killed actctl, and the process lives on. The other
// files of the run directory and an agent's record, forged to name the
// same process, make neither `run`, `task` nor `status` signal it. The
// process named is the test's own `sleep`, in a session of its own.
func TestRunIgnoresClonedLedger(t *testing.T) {
	src, home := runWorkspace(t)
	victim := exec.Command("sleep", "1000")
	victim.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	pid, start := victim.Process.Pid, procStart(t, victim.Process.Pid)
	name := fmt.Sprintf("%d-1.procs", 0x7fffffff) // an owner that is gone
	ledger := fmt.Sprintf("%d %d m\n%d %d %d-0123456789abcdef01234567\n", pid, start, pid, start, pid)
	if err := os.MkdirAll(filepath.Join(src, ".actant", "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	forged := map[string]string{
		filepath.Join("run", name):               ledger,
		filepath.Join("run", "up.lock"):          fmt.Sprintf("%d\n", pid),
		filepath.Join("run", "task-worker.lock"): fmt.Sprintf("up %d\n", pid),
		filepath.Join("run", "ui.json"):          fmt.Sprintf(`{"url": "http://127.0.0.1:1/", "pid": %d}`, pid),
		filepath.Join("agents", "helper.json"):   fmt.Sprintf(`{"processOwnership": "managed", "status": "running", "pid": %d}`, pid),
	}
	for rel, body := range forged {
		p := filepath.Join(src, ".actant", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hubGit(t, src, "init", "-q", "-b", "main")
	hubGit(t, src, "add", "-f", "-A")
	hubGit(t, src, "commit", "-q", "-m", "a clone's ledger")
	root := filepath.Join(t.TempDir(), "clone")
	hubGit(t, filepath.Dir(root), "clone", "-q", src, root)
	if err := os.Mkdir(filepath.Join(root, "ghost"), 0o755); err != nil { // an empty directory git does not keep
		t.Fatal(err)
	}
	cloned := filepath.Join(root, ".actant", "run", name)
	if _, err := os.Stat(cloned); err != nil {
		t.Fatalf("the clone has no ledger: %v", err)
	}

	r := actctl(t, root, home, "run", "helper", "-p", "hello")
	if r.Code != 0 {
		t.Fatalf("run: exit %d\n%s", r.Code, r.Stderr)
	}
	if exited(pid) {
		t.Fatalf("run signalled a process named by a ledger that came with the clone\n%s", r.Stderr)
	}
	want := "ignoring " + cloned + ": actctl never reads a process ledger in the workspace"
	if n := strings.Count(r.Stderr, want); n != 1 {
		t.Errorf("said %d times %q:\n%s", n, want, r.Stderr)
	}
	if strings.Contains(r.Stderr, "killed actctl") {
		t.Errorf("a killed actctl is blamed for a file it did not write:\n%s", r.Stderr)
	}
	if _, err := os.Stat(cloned); err != nil {
		t.Errorf("the committed ledger was removed: %v", err)
	}
	for _, args := range [][]string{{"task", "worker"}, {"status"}} {
		r := actctl(t, root, home, args...)
		if exited(pid) {
			t.Fatalf("%v signalled a process named by files that came with the clone\n%s", args, r.Stderr)
		}
	}
}

// procStart is pid's start time since boot (/proc/PID/stat, field 22).
func procStart(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // f[0] is field 3
	start, err := strconv.ParseUint(f[22-3], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return start
}
