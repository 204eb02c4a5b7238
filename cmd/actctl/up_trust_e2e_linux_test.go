package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestUpEndsWhatAKilledOneLeft: `kill -9` of up kills its agents (their
// parent-death signal) but not their children, in their group or in a
// session of their own (setsid); the next up ends them before it starts
// anything, and only them (a process of ours that only looks alike, and
// the new up's agents, live on).
func TestUpEndsWhatAKilledOneLeft(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api")
	p.started("api")
	var left []int
	for _, op := range []string{"stream", "escape"} {
		prompt, _, m := startPromptLine(t, root, home, "api", op, `(?:streaming|escaped) pid=(\d+) child=(\d+)`)
		defer func() { _ = prompt.Process.Kill(); _ = prompt.Wait() }()
		child, _ := strconv.Atoi(m[2])
		left = append(left, child)
		t.Cleanup(func() { killPid(child) })
	}
	bystander := exec.Command("sleep", "1000") // ours, no mark
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bystander.Process.Kill(); _ = bystander.Wait() }()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	for _, pid := range left {
		if exited(pid) {
			t.Fatalf("child %d died with up: nothing to test", pid)
		}
	}
	p2 := startUp(t, root, home, "api")
	p2.started("api")
	requireExited(t, "a child the killed up left", left...)
	if !regexp.MustCompile(`ended \d+ process\(es\) a killed actctl left running`).MatchString(p2.stderr()) {
		t.Errorf("the new up did not say what it ended:\n%s", p2.stderr())
	}
	if exited(bystander.Process.Pid) {
		t.Errorf("the sweep killed a process that was not the killed up's")
	}
}

// TestRunEndsWhatAKilledOneLeft: the same for `actctl run`: the next run
// in the workspace ends the children a killed one left.
func TestRunEndsWhatAKilledOneLeft(t *testing.T) {
	root, home := runWorkspace(t)
	cmd, stderr, _, child := startRun(t, root, home, "helper", "-p", "stream")
	t.Cleanup(func() { killPid(child) })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if exited(child) {
		t.Fatalf("child %d died with run: nothing to test\n%s", child, stderr)
	}
	r := actctl(t, root, home, "run", "helper", "-p", "hello")
	// (How many: the child, and the backend when its parent-death
	// signal had not yet ended it.)
	if r.Code != 0 || !regexp.MustCompile(`ended \d+ process\(es\) a killed actctl left running`).MatchString(r.Stderr) {
		t.Errorf("run: %d\n%s", r.Code, r.Stderr)
	}
	requireExited(t, "the child the killed run left", child)
	if left, _ := filepath.Glob(filepath.Join(home, "procs", "*", "*")); len(left) != 0 {
		t.Errorf("ledgers left: %v", left)
	}
}

// TestUpEndsHookChildren: a hook's child in a session of its own
// (setsid) outlives the hook; up ends it when it stops.
func TestUpEndsHookChildren(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: svc: {backend: "scripted", archetype: "service"}
agents: api: template: "svc"
hooks: "daemon": {on: "process:start", run: {command: "sh", args: ["-c", "setsid sleep 1000 & echo $! > `+fifo+`"]}}
`)
	p := startUp(t, root, home)
	f, err := os.Open(fifo) // until the hook writes
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	f.Close()
	child, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("hook child %q: %v %v", line, err, perr)
	}
	t.Cleanup(func() { killPid(child) })
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`up: stopped`)
	_ = p.cmd.Wait()
	requireExited(t, "the hook's setsid child after up stopped", child)
}
