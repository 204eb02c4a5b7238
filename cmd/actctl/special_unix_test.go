//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOInWorkspace: a named pipe among the workspace's *.cue files
// used to hang every command in open(2). Each command must now fail at
// once naming it, and write nothing. The generous deadline only turns a
// regression into a failure instead of a hung test run.
func TestFIFOInWorkspace(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": validHeader + `
templates: t: backend: "claude-code"
agents: a: template: "t"
`})
	if err := syscall.Mkfifo(filepath.Join(dir, "more.cue"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range [][]string{{"validate"}, {"apply"}, {"status"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, actctlBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		hung := ctx.Err() != nil
		cancel()
		if hung {
			t.Fatalf("actctl %s hung on a named pipe", args[0])
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("actctl %s: %v, want exit 1\n%s", args[0], err, out)
		}
		if !strings.Contains(string(out), "more.cue: not a regular file (a named pipe)") {
			t.Errorf("actctl %s: output does not name the pipe:\n%s", args[0], out)
		}
	}
	if got := listFiles(t, dir); len(got) != 2 { // actant.cue and the pipe
		t.Errorf("files written: %v", got)
	}
	assertNotWritten(t, dir, "apply", "CLAUDE.md", ".actant")
}
