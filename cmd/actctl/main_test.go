package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/internal/testutil"
)

// actctlBin is the actctl binary built once for the end-to-end tests of
// every command (shared by all *_test.go files of this package).
var actctlBin string

func TestMain(m *testing.M) {
	// The test binary doubles as a small ACP agent for the proxy tests.
	if out := os.Getenv("ACTCTL_TEST_AGENT_OUT"); out != "" {
		os.Exit(runTestAgent(out))
	}
	// ... and as the scripted agent of the run and chat tests.
	if os.Getenv(acptestagent.Var) != "" {
		os.Exit(acptestagent.Main())
	}
	dir, err := os.MkdirTemp("", "actctl-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	actctlBin = filepath.Join(dir, "actctl")
	build := exec.Command("go", "build", "-o", actctlBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build actctl:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	testutil.Cleanup()
	os.Exit(code)
}

// result is what one actctl run printed and how it exited.
type result struct {
	Stdout, Stderr string
	Code           int
}

// actctl runs the binary in dir with ACTANT_HOME set to home (created under
// t.TempDir() when empty) and returns its output and exit code.
func actctl(t *testing.T, dir, home string, args ...string) result {
	t.Helper()
	return actctlEnv(t, dir, home, nil, args...)
}

// actctlEnv is actctl with extra environment variables (NAME=value).
func actctlEnv(t *testing.T, dir, home string, env []string, args ...string) result {
	t.Helper()
	return actctlStdin(t, dir, home, env, nil, args...)
}

// actctlStdin is actctlEnv with stdin (nil: none).
func actctlStdin(t *testing.T, dir, home string, env []string, stdin io.Reader, args ...string) result {
	t.Helper()
	if home == "" {
		home = filepath.Join(t.TempDir(), "home")
	}
	cmd := exec.Command(actctlBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, stdin
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run actctl %s: %v", strings.Join(args, " "), err)
	}
	return result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// writeFiles creates files (path relative to dir -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// listFiles returns every file path (relative, slash-separated) under dir.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// assertNotWritten fails when any of files (relative to dir) exists.
func assertNotWritten(t *testing.T, dir, what string, files ...string) {
	t.Helper()
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s: %s was written", what, f)
		}
	}
}

// hubGit runs git in dir, isolated from the user's configuration.
func hubGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
