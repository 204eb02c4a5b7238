package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// badConfig runs each command of cmds on a workspace holding src as its
// actant.cue (and the files of extra) and checks that each fails with
// exit 1, prints exactly want on stderr (with "ROOT" standing for the
// workspace root) and writes nothing: the workspace holds what it held.
func badConfig(t *testing.T, src string, extra map[string]string, want string, cmds ...[]string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	files := map[string]string{"actant.cue": src}
	for k, v := range extra {
		files[k] = v
	}
	writeFiles(t, dir, files)
	before := listFiles(t, base)
	want = strings.ReplaceAll(want, "ROOT", dir)
	for _, args := range cmds {
		r := actctl(t, dir, filepath.Join(t.TempDir(), "home"), args...)
		if r.Code != 1 || r.Stderr != want {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 1 and:\n%s", args, r.Code, r.Stderr, want)
		}
		if after := listFiles(t, base); !slices.Equal(before, after) {
			t.Errorf("%v wrote files: %v, had %v", args, after, before)
		}
	}
}

// The commands a bad config is tried with.
var (
	validateArgs = []string{"validate"}
	applyArgs    = []string{"apply"}
)

// TestWorkDirRefusedE2E: a relative workDir that climbs out of the root
// is refused at its position with the absolute-path hint, for a local and
// a hub template; a project agent's workDir that does not exist is
// refused naming the path, with a close sibling as "did you mean", and
// is not created (issue #22 item 8).
func TestWorkDirRefusedE2E(t *testing.T) {
	const tpl = "package actant\n\nhub: h: url: \"https://example.com/h.git\"\ntemplates: dev: backend: \"claude-code\"\n"
	for _, tc := range []struct {
		name, agent string
		extra       map[string]string
		want        string
	}{
		{"climbs out", `agents: fixer: {template: "dev", workDir: "../elsewhere"}`, nil,
			`actctl: ROOT/actant.cue:5:43: agents.fixer.workDir: workDir "../elsewhere" climbs out of the workspace root; give an absolute path to mean a directory outside it` + "\n"},
		{"climbs out from a sub-directory", `agents: fixer: {template: "dev", workDir: "./src/../../elsewhere"}`, map[string]string{"src/main.go": "package main\n"},
			`actctl: ROOT/actant.cue:5:43: agents.fixer.workDir: workDir "./src/../../elsewhere" climbs out of the workspace root; give an absolute path to mean a directory outside it` + "\n"},
		{"climbs out, hub template", `agents: fixer: {template: "h@dev", workDir: ".."}`, nil,
			`actctl: ROOT/actant.cue:5:45: agents.fixer.workDir: workDir ".." climbs out of the workspace root; give an absolute path to mean a directory outside it` + "\n"},
		{"misspelled", `agents: fixer: {template: "dev", workDir: "srcc"}`, map[string]string{"src/main.go": "package main\n"},
			`actctl: ROOT/actant.cue:5:43: agents.fixer.workDir: workDir ROOT/srcc does not exist; actctl does not create it (did you mean "src"?)` + "\n"},
		{"misspelled below", `agents: fixer: {template: "dev", workDir: "services/paymnts"}`, map[string]string{"services/payments/go.mod": "module p\n"},
			`actctl: ROOT/actant.cue:5:43: agents.fixer.workDir: workDir ROOT/services/paymnts does not exist; actctl does not create it (did you mean "services/payments"?)` + "\n"},
		{"missing", `agents: fixer: {template: "dev", workDir: "api"}`, nil,
			`actctl: ROOT/actant.cue:5:43: agents.fixer.workDir: workDir ROOT/api does not exist; actctl does not create it (create it first, or correct the path)` + "\n"},
		{"a file", `agents: fixer: {template: "dev", workDir: "main.go"}`, map[string]string{"main.go": "package main\n"},
			`actctl: ROOT/actant.cue:5:43: agents.fixer.workDir: workDir ROOT/main.go is not a directory` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmds := [][]string{validateArgs, applyArgs}
			if strings.Contains(tc.agent, "h@") {
				cmds = [][]string{validateArgs} // apply would fetch the hub first
			}
			badConfig(t, tpl+tc.agent+"\n", tc.extra, tc.want, cmds...)
		})
	}
}
