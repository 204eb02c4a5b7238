//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestHookDiesWithActctl: a run hook still running when actctl is killed
// (SIGKILL: no cleanup runs) is killed with it, by the parent-death signal
// its process group leader gets, as a backend's is.
func TestHookDiesWithActctl(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant
templates: t: backend: "claude-code"
agents: a: {template: "t", workDir: "a"}
hooks: hang: {on: "agent:created", run: {command: "/bin/sh", args: ["-c", "echo $$ > ` + fifo + `; exec sleep 1000"]}}
`})
	cmd := exec.Command(actctlBin, "apply")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	f, err := os.Open(fifo) // blocks until the hook opens it
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	f.Close()
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("hook pid %q: %v %v", line, err, perr)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	requireExited(t, "the hook after actctl was killed", pid)
}
