package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// statusWorkspace is agentWorkspace applied by a plain apply, its config
// aged an hour (so that the apply records its inputs settled), with the
// tool agent attached to this test's process.
func statusWorkspace(t *testing.T) (dir, home string) {
	t.Helper()
	dir, home = agentWorkspace(t)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "actant.cue"), old, old); err != nil {
		t.Fatal(err)
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %s", r.Stderr)
	}
	if r := actctl(t, dir, home, "attach", "helper", "--pid", itoa(os.Getpid())); r.Code != 0 {
		t.Fatalf("attach: %s", r.Stderr)
	}
	return dir, home
}

// debugStatus runs `status args...` with ACTCTL_DEBUG=1 and returns its
// result, its stderr without the debug lines, and whether it took the
// fast path (no config loaded).
func debugStatus(t *testing.T, dir, home string, args ...string) (r result, stderr string, fast bool) {
	t.Helper()
	r = actctlEnv(t, dir, home, []string{"ACTCTL_DEBUG=1"}, append([]string{"status"}, args...)...)
	var rest []string
	for _, l := range strings.SplitAfter(r.Stderr, "\n") {
		if !strings.HasPrefix(l, "actctl: debug: ") {
			rest = append(rest, l)
		}
	}
	fast = strings.Contains(r.Stderr, "actctl: debug: status: fast path") && !strings.Contains(r.Stderr, "actctl: debug: config:")
	return r, strings.Join(rest, ""), fast
}

// TestStatusFastNoConfig: with nothing changed since a plain apply,
// status loads no config (its debug lines say so) and prints, in text
// and JSON, byte for byte what the full path prints (the inputs record
// removed: the config loaded, every agent rendered).
func TestStatusFastNoConfig(t *testing.T) {
	dir, home := statusWorkspace(t)
	t.Run("plain", func(t *testing.T) { statusFastAsFull(t, dir, home) })
	// An ad-hoc agents file actctl did not seal: the load warns that it
	// ignores it, and so does the fast path.
	writeFiles(t, dir, map[string]string{".actant/adhoc.json": `{"agents": {}}`})
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, ".actant/adhoc.json"), old, old); err != nil {
		t.Fatal(err)
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || !strings.Contains(r.Stderr, "adhoc.json") {
		t.Fatalf("apply: %d %s", r.Code, r.Stderr)
	}
	t.Run("ignored ad-hoc agents", func(t *testing.T) { statusFastAsFull(t, dir, home) })
}

// statusFastAsFull checks that status in dir takes the fast path and
// prints what the full path prints, in text and JSON.
func statusFastAsFull(t *testing.T, dir, home string) {
	for _, args := range [][]string{nil, {"-o", "json"}} {
		fast, fastErr, ok := debugStatus(t, dir, home, args...)
		if !ok || fast.Code != 0 {
			t.Fatalf("status %v: not the fast path (%d):\n%s", args, fast.Code, fast.Stderr)
		}
		if !strings.Contains(fast.Stdout, "running pid") && !strings.Contains(fast.Stdout, `"pid"`) {
			t.Errorf("status %v: no process of the attached agent:\n%s", args, fast.Stdout)
		}
		rec := filepath.Join(dir, ".actant", "inputs.rec")
		saved := mustRead(t, rec)
		if err := os.Remove(rec); err != nil {
			t.Fatal(err)
		}
		slow, slowErr, ok := debugStatus(t, dir, home, args...)
		if ok {
			t.Fatalf("status %v: the fast path without an inputs record", args)
		}
		if fast.Stdout != slow.Stdout || fastErr != slowErr || fast.Code != slow.Code {
			t.Errorf("status %v: fast path\n%s%s(%d)\nfull path\n%s%s(%d)", args, fast.Stdout, fastErr, fast.Code, slow.Stdout, slowErr, slow.Code)
		}
		if err := os.WriteFile(rec, saved, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStatusFastFallsBack: any change since the last plain apply makes
// status load the config, and report what it reported before the fast
// path existed: a broken config's error, a drifted file, another home's
// view.
func TestStatusFastFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string) (env []string)
		code   int
		want   string // in stdout, or stderr with a non-zero code
	}{
		{"config broken", func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"actant.cue": "package actant\nagents: helper: {template: \"tool\"\n"})
			return nil
		}, 1, "actant.cue"},
		{"output drifted", func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"proj/FAKE.md": "edited by hand\n"})
			return nil
		}, 0, "OutOfSync"},
		{"state replaced", func(t *testing.T, dir string) []string {
			p := filepath.Join(dir, ".actant", "state.json")
			b := mustRead(t, p)
			os.Remove(p)
			writeFiles(t, dir, map[string]string{".actant/state.json": string(b)})
			return nil
		}, 0, "Synced"},
		{"another home", func(t *testing.T, dir string) []string {
			return []string{"ACTANT_HOME=" + filepath.Join(t.TempDir(), "other")}
		}, 0, "helper"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := statusWorkspace(t)
			env := append(tc.change(t, dir), "ACTCTL_DEBUG=1")
			r := actctlEnv(t, dir, home, env, "status")
			if strings.Contains(r.Stderr, "debug: status: fast path") {
				if tc.name == "state replaced" && r.Code == 0 && strings.Contains(r.Stdout, tc.want) {
					return // the same bytes: a record of its digest (racy) rightly holds
				}
				t.Fatalf("fast path after the change:\n%s", r.Stderr)
			}
			out := r.Stdout
			if tc.code != 0 {
				out = r.Stderr
			}
			if r.Code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("status: exit %d, want %d, %q in:\n%s%s", r.Code, tc.code, tc.want, r.Stdout, r.Stderr)
			}
		})
	}
}

// TestUpRecordsInputsAfterStarts: up's starts write the agents' runtime
// keys into their instances' .actant.json, files apply's record vouches
// for; once the starts settle, up records the inputs again, and status
// while up runs takes the fast path (loads no config).
func TestUpRecordsInputsAfterStarts(t *testing.T) {
	t.Setenv("ACTCTL_DEBUG", "1")
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, "package actant\n"+scriptedBackend(t, "")+`
templates: svc: {backend: "scripted", archetype: "service"}
agents: {
	one: template: "svc"
	two: template: "svc"
}
`)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(root, "actant.cue"), old, old); err != nil {
		t.Fatal(err)
	}
	p := startUp(t, root, home)
	defer p.stop()
	p.waitLine(`: process:start pid \d+`)
	p.waitLine(`: process:start pid \d+`)
	p.waitLine(`debug: inputs: recorded again: 2 files changed only by the runtime`)
	r := actctl(t, root, home, "status")
	if r.Code != 0 || !strings.Contains(r.Stderr, "debug: status: fast path") || strings.Contains(r.Stderr, "debug: config:") {
		t.Fatalf("status under up: not the fast path (%d):\n%s", r.Code, r.Stderr)
	}
	if strings.Count(r.Stdout, "running pid") != 2 {
		t.Errorf("status under up:\n%s", r.Stdout)
	}
}
