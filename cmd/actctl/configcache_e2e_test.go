package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/layout"
)

// The config cache (docs/design.md, "The config cache"): ACTCTL_DEBUG=1
// says on stderr whether the config came from it or was evaluated.
const (
	cachedLine    = "actctl: debug: config: from the cache"
	evaluatedLine = "actctl: debug: config: evaluated: "
)

// cacheConfig has a warning (its position must survive the cache) and a
// skill file (read again by every load, cached or not).
const cacheConfig = `package actant

skills: style: {description: "Style", file: "docs/style.md"}
templates: t: {backend: "cursor", skills: ["style"], permissions: "standard"}
agents: a: {template: "t", workDir: "."}
`

func loadPath(t *testing.T, dir, home string, cached bool, args ...string) result {
	t.Helper()
	r := actctlEnv(t, dir, home, debugEnv, args...)
	if r.Code != 0 {
		t.Fatalf("%v: %+v", args, r)
	}
	if got := strings.Contains(r.Stderr, cachedLine); got != cached {
		t.Fatalf("%v: from the cache %v, want %v:\n%s", args, got, cached, r.Stderr)
	}
	return r
}

// TestConfigCacheE2E: an apply caches its evaluation; commands that load
// the config take it while the CUE files are unchanged and print the same
// (warnings and their positions included); an edit is evaluated, and a
// skill file edit is seen with the cache.
func TestConfigCacheE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": cacheConfig, "docs/style.md": "---\nname: style\ndescription: Style\n---\nShort lines.\n"})
	age(t, dir, "actant.cue", "docs/style.md")
	r := loadPath(t, dir, home, false, "validate")
	if !strings.Contains(r.Stderr, evaluatedLine+"no config cache") {
		t.Fatalf("validate: %s", r.Stderr)
	}
	warning := "actant.cue:5:"
	if !strings.Contains(r.Stderr, warning) {
		t.Fatalf("no positioned warning: %s", r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, layout.Dir)); !os.IsNotExist(err) {
		t.Fatalf("validate wrote %s: %v", layout.Dir, err)
	}
	loadPath(t, dir, home, false, "apply", "--dry-run")
	loadPath(t, dir, home, false, "apply", "a") // not plain: no fast path; caches
	cached := loadPath(t, dir, home, true, "validate")
	if w := strings.ReplaceAll(cached.Stderr, cachedLine, ""); !strings.Contains(w, warning) {
		t.Fatalf("cached validate lost the warning's position: %s", w)
	}
	get := loadPath(t, dir, home, true, "get", "agents", "-o", "json")

	writeFiles(t, dir, map[string]string{"docs/style.md": "---\nname: style\ndescription: Style\n---\nLong lines.\n"})
	r = loadPath(t, dir, home, true, "apply", "a")
	if !strings.Contains(r.Stdout, "1 changed") {
		t.Fatalf("the skill file edit was not applied: %s", r.Stdout)
	}
	writeFiles(t, dir, map[string]string{"actant.cue": strings.Replace(cacheConfig, `agents: a:`, `agents: b:`, 1)})
	r = loadPath(t, dir, home, false, "get", "agents", "-o", "json")
	if !strings.Contains(r.Stderr, "actant.cue changed") || !strings.Contains(r.Stdout, `"b"`) || r.Stdout == get.Stdout {
		t.Fatalf("edited config: %+v", r)
	}
}

// TestRunTakesConfigCache: `actctl run` caches the evaluation its apply
// of the agent used, and the next run takes it; a run -t does not leave
// one behind (TestRunEphemeralTemplate) but takes one that is there.
func TestRunTakesConfigCache(t *testing.T) {
	root, home := runWorkspace(t)
	age(t, root, "actant.cue")
	for i, cached := range []bool{false, true} {
		r := actctlEnv(t, root, home, debugEnv, "run", "reader", "-p", "hello")
		if r.Code != 0 || strings.Contains(r.Stderr, cachedLine) != cached {
			t.Fatalf("run %d: from the cache: want %v: exit %d\n%s", i, cached, r.Code, r.Stderr)
		}
	}
	r := actctlEnv(t, root, home, debugEnv, "run", "-t", "std", "-p", "hello")
	if r.Code != 0 || !strings.Contains(r.Stderr, cachedLine) {
		t.Fatalf("run -t: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestWatchSavesConfigCache: a cycle of apply --watch (up's too) caches
// its evaluation as a plain apply does, so status and get while it runs
// take the cache instead of evaluating the config each time.
func TestWatchSavesConfigCache(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": cacheConfig, "docs/style.md": "---\nname: style\ndescription: Style\n---\nShort lines.\n"})
	age(t, dir, "actant.cue", "docs/style.md")
	cmd := exec.Command(actctlBin, "apply", "--watch")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "applied: ") {
		t.Fatalf("the first cycle: %q, %v", lines.Text(), lines.Err())
	}
	loadPath(t, dir, home, true, "get", "agents")
}
