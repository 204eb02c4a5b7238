// Package realengines is the real-engine test tier (docs/testing-runtime.md,
// "The real-engine tier"): the files `actctl apply` renders for the deploy
// targets, run on the engines themselves (a systemd user manager, GitHub's
// shell with real git, a Kubernetes control plane). Its tests run only
// with ACTCTL_REAL_ENGINES=1; the README's `go test ./...` skips them.
package realengines

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/internal/testutil"
	"github.com/fsnotify/fsnotify"
)

// TierVar turns the tier on.
const TierVar = "ACTCTL_REAL_ENGINES"

// guard bounds each engine step: a failure guard that turns a hang into a
// failure naming the step, never a wait.
const guard = 3 * time.Minute

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	// The test binary doubles as the scripted agent of the workspaces.
	if os.Getenv(acptestagent.Var) != "" {
		os.Exit(acptestagent.Main())
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// requireTier skips the test unless the tier is on.
func requireTier(t *testing.T) {
	t.Helper()
	if os.Getenv(TierVar) != "1" {
		t.Skipf("the real-engine tier runs with %s=1 (docs/testing-runtime.md)", TierVar)
	}
}

// missing skips the test for a missing prerequisite, except in CI
// (CI=true), where .ci/run installs every one and a missing one fails.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	testutil.Missing(t, format, args...)
}

// tool returns the path of a program the tier needs.
func tool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{os.Getenv("GOBIN"), filepath.Join(os.Getenv("HOME"), "go", "bin")} {
		if p := filepath.Join(dir, name); dir != "" && isExec(p) {
			return p
		}
	}
	missing(t, "%s is not on PATH", name)
	return ""
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// actctlBin builds actctl once per test binary.
func actctlBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "actctl-realengines-")
		if buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "actctl")
		out, err := exec.Command("go", "build", "-o", buildBin, "github.com/actctl/actctl/cmd/actctl").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build actctl: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// scriptedBackend is a backend whose agent is this test binary.
func scriptedBackend(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return `backends: scripted: {
	modes: ["acp"]
	install: "true"
	acp: {command: "` + self + `", env: {` + acptestagent.Var + `: "1"}}
	files: instructions: ["SCRIPTED.md"]
}
`
}

// run runs a command with env (NAME=value, the whole environment) in dir
// and returns its combined output; a failure fails the test.
func run(t *testing.T, ctx context.Context, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := runErr(ctx, dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// runErr is run without failing.
func runErr(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// writeFile writes content at dir/rel, making the directories.
func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// watchCreate watches dir and returns a function that waits for the
// creation of dir/name after the call (not before: a file left by a
// killed process does not count), or fails once ctx ends.
func watchCreate(t *testing.T, ctx context.Context, dir, name string) func() {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		for {
			select {
			case ev := <-w.Events:
				if filepath.Base(ev.Name) == name && ev.Has(fsnotify.Create) {
					return
				}
			case err := <-w.Errors:
				t.Fatalf("watch %s: %v", dir, err)
			case <-ctx.Done():
				t.Fatalf("%s was not created in %s: %v", name, dir, ctx.Err())
			}
		}
	}
}

// awaitPath returns once path exists, its missing parent directories
// awaited one after the other (fsnotify, no polling), or ctx's error.
func awaitPath(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if dir := filepath.Dir(path); dir != path {
		if err := awaitPath(ctx, dir); err != nil {
			return err
		}
	}
	return acptestagent.AwaitFile(ctx, path)
}
