//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/layout"
)

// The inputs actctl trusts (issue #20, items 4, 6 and 21): what it loads
// is never a special file that hangs it, what it caches cannot be forged
// by an agent, and what it reads through a symlink is tracked by its
// target.

// boundedRun runs actctl like actctlEnv under a deadline that turns a
// hang into a failure (never a timing assertion: a run that ends is
// fine however long it took).
func boundedRun(t *testing.T, dir, home string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, actctlBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("actctl %s hung (killed at the test's deadline)\n%s", strings.Join(args, " "), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run actctl %s: %v", strings.Join(args, " "), err)
	}
	return result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

func mkfifoAt(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// assertFIFO fails unless p is still a named pipe.
func assertFIFO(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer the named pipe: %v %v", p, fi, err)
	}
}

// TestSpecialFilesBesideConfig: CUE's loader reads every file of the
// root (and of cue.mod/'s packages) whose name it knows — *.json, *.yaml,
// *.txt, *.textproto ... — and opened a named pipe there, hanging every
// command. Such files, and links to them or to nothing, are no part of
// the config: validate, apply and status run as without them, and leave
// them alone. (A *.cue pipe is an error naming it: TestFIFOInWorkspace.)
func TestSpecialFilesBesideConfig(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{
		"actant.cue":         validHeader + "templates: t: backend: \"claude-code\"\nagents: a: {template: \"t\", workDir: \".\"}\n",
		"cue.mod/module.cue": "module: \"example.com/ws\"\nlanguage: version: \"v0.9.0\"\n",
	})
	pipes := []string{"data.json", "values.yaml", "notes.txt", "more.yml", "x.jsonl", "m.textproto", "cue.mod/pkg/example.com/p/data.json", "cue.mod/usr/x.yaml"}
	for _, p := range pipes {
		mkfifoAt(t, filepath.Join(dir, p))
	}
	for target, link := range map[string]string{"notes.txt": "linked.json", "nowhere": "dangling.yaml"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"validate"}, {"status"}} {
		r := boundedRun(t, dir, home, nil, args...)
		if r.Code != 0 {
			t.Fatalf("actctl %s: %+v", args[0], r)
		}
	}
	assertNotWritten(t, dir, "validate and status", ".actant", "CLAUDE.md")
	if r := boundedRun(t, dir, home, nil, "apply"); r.Code != 0 || !strings.Contains(r.Stdout, "applied: ") {
		t.Fatalf("apply: %+v", r)
	}
	for _, p := range pipes {
		assertFIFO(t, filepath.Join(dir, p))
	}
}

// TestSpecialFilesAsCaches: a named pipe where actctl keeps a cache or a
// record it reads before anything else (.actant/config.cache,
// .actant/inputs.rec) is refused as a cache, never opened for reading:
// every command runs the normal path and says why with ACTCTL_DEBUG=1.
func TestSpecialFilesAsCaches(t *testing.T) {
	dir, home := fastWorkspace(t)
	for _, f := range []string{layout.ConfigCache, layout.Inputs} {
		p := layout.Path(dir, f)
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		mkfifoAt(t, p)
	}
	for _, args := range [][]string{{"validate"}, {"status"}, {"get", "agents"}, {"apply"}} {
		r := boundedRun(t, dir, home, debugEnv, args...)
		if r.Code != 0 {
			t.Fatalf("actctl %s: %+v", args[0], r)
		}
		if !strings.Contains(r.Stderr, evaluatedLine) || !strings.Contains(r.Stderr, "config.cache: not a regular file") {
			t.Errorf("actctl %s took or did not name the pipe as config cache:\n%s", args[0], r.Stderr)
		}
		if args[0] == "apply" && !strings.Contains(r.Stderr, fullLine+": read "+layout.Path(dir, layout.Inputs)+": not a regular file") {
			t.Errorf("apply did not say why it took the full path:\n%s", r.Stderr)
		}
	}
}
