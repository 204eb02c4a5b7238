package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOutputsPortable: nothing apply writes outside .actant/ depends on
// where the workspace is. The workspace with every artifact of every
// built-in backend, with extra directories (a relative and an absolute
// one) under a writing mode, is applied in two real directories at
// different paths; every file written, actant.owned included, must hold
// the same bytes in both, so a clone at another path neither drifts nor
// rewrites what is committed (issue #34 item 4: Codex's writable_roots
// held the machine's absolute path).
func TestOutputsPortable(t *testing.T) {
	cfg := strings.Replace(everyBackendConfig(true), `permissions: "readonly"`,
		`permissions: {defaultMode: "acceptEdits", additionalDirectories: ["../shared", "/opt/shared", "~/notes"]}`, 1)
	user := map[string]string{
		"skills/pdf/SKILL.md":        richSkillMD,
		"skills/pdf/scripts/fill.py": "#!/usr/bin/env python3\n",
	}
	var trees []map[string]string
	for _, parent := range []string{t.TempDir(), filepath.Join(t.TempDir(), "a", "much", "longer", "path")} {
		dir := filepath.Join(parent, "ws")
		writeFiles(t, dir, user)
		for _, d := range slices.Sorted(maps.Keys(everyBackend)) {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		writeConfig(t, dir, cfg)
		if r := actctl(t, dir, filepath.Join(parent, "home"), "apply"); r.Code != 0 {
			t.Fatalf("apply in %s: exit %d\n%s%s", dir, r.Code, r.Stdout, r.Stderr)
		}
		tree := map[string]string{}
		for _, f := range filesExceptMeta(t, dir) {
			tree[f] = read(t, filepath.Join(dir, f))
		}
		trees = append(trees, tree)
	}
	a, b := trees[0], trees[1]
	if got, want := slices.Sorted(maps.Keys(b)), slices.Sorted(maps.Keys(a)); !slices.Equal(got, want) {
		t.Fatalf("files differ:\n%v\n%v", want, got)
	}
	for _, f := range slices.Sorted(maps.Keys(a)) {
		if a[f] != b[f] {
			t.Errorf("%s differs between the two paths:\n--- first\n%s\n--- second\n%s", f, a[f], b[f])
		}
	}
	if _, ok := a["actant.owned"]; !ok {
		t.Errorf("no actant.owned compared: %v", slices.Sorted(maps.Keys(a)))
	}
	codex := a["codex/.codex/config.toml"]
	if !strings.Contains(codex, `writable_roots = ['/opt/shared', '~/notes']`) && !strings.Contains(codex, `writable_roots = ["/opt/shared", "~/notes"]`) {
		t.Errorf("codex config.toml lacks the portable roots:\n%s", codex)
	}
}

// TestCodexProjectProfilesWarned: Codex ignores profiles (and the
// provider and base-URL keys) in a project's .codex/config.toml since
// 0.130; a template that sets them through settings.codex is told so by
// validate and apply, naming the keys, and the key it does read
// (model_reasoning_effort) gets no warning (issue #34 item 3).
func TestCodexProjectProfilesWarned(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `package actant
templates: cx: {backend: "codex", settings: codex: {model_reasoning_effort: "high", profiles: fast: model: "gpt-5.5-mini", model_provider: "azure"}}
agents: cx: template: "cx"
`)
	const want = "settings.codex (template \"cx\"): profiles, model_provider are written to .codex/config.toml, but Codex ignores them in a project's config since 0.130"
	for _, cmd := range []string{"validate", "apply"} {
		r := actctl(t, dir, "", cmd)
		if r.Code != 0 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stderr, "model_reasoning_effort") {
			t.Errorf("%s: exit %d\n%s", cmd, r.Code, r.Stderr)
		}
	}
}
