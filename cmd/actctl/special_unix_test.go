//go:build unix

package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
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

// TestApplyInterrupted: SIGINT while apply waits on a hub source that
// never answers stops it: the signal is acknowledged, the run ends at once
// with exit 130 and a message, and nothing was written. The server tells
// the test when apply's request has arrived, so the signal comes while
// apply is blocked.
func TestApplyInterrupted(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-r.Context().Done() // until actctl goes away
	}))
	defer srv.Close()
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": validHeader + `hub: team: url: "` + srv.URL + `/hub.git"
templates: t: backend: "claude-code"
agents: a: template: "t"
`})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, actctlBin, "apply")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-arrived:
	case err := <-exited:
		t.Fatalf("apply ended before reaching the hub: %v\n%s", err, stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := <-exited
	if ctx.Err() != nil {
		t.Fatal("apply ignored SIGINT")
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("apply: %v, want exit 130\n%s", err, stderr.String())
	}
	for _, w := range []string{"actctl: SIGINT received: stopping at the next safe point", "interrupted by SIGINT"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
		}
	}
	if got := listFiles(t, dir); len(got) != 1 {
		t.Errorf("interrupted apply wrote files: %v", got)
	}
}
