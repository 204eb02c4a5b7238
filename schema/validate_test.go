package schema

import (
	"path/filepath"
	"strings"
	"testing"
)

// validationCase is one config and the diagnostics (with positions:
// "actant.cue:line:col: path: message" substrings) it must produce; an
// empty want means the config is valid.
type validationCase struct {
	name string
	cue  string // appended to the package clause
	want []string
}

// runValidation loads each case in a fresh workspace with HOME set to a
// directory of its own ("HOME" in the config is replaced by it) and checks
// the diagnostics.
func runValidation(t *testing.T, cases []validationCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			userHome := t.TempDir()
			t.Setenv("HOME", userHome)
			src := "package actant\n\n" + strings.ReplaceAll(tt.cue, "HOME", userHome)
			dir := writeWorkspace(t, map[string]string{"actant.cue": src})
			_, err := LoadDir(dir, filepath.Join(t.TempDir(), "actant-home"))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("loaded; want %q", tt.want)
			}
			got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			got = strings.ReplaceAll(got, userHome, "HOME")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("diagnostics lack %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestWorkDirValues: workDir values that would write into the file
// system root, the home directory, .git or .actant are refused at their
// position; "~/" is the home directory.
func TestWorkDirValues(t *testing.T) {
	const tpl = "templates: t: backend: \"claude-code\"\n"
	runValidation(t, []validationCase{
		{"root", tpl + "agents: a: {template: \"t\", workDir: \"/\"}\n", []string{"actant.cue:4:37: agents.a.workDir: workDir / is the root of the file system"}},
		{"root via dots", tpl + "agents: a: {template: \"t\", workDir: \"/tmp/../..\"}\n", []string{"agents.a.workDir: workDir / is the root of the file system"}},
		{"tilde", tpl + "agents: a: {template: \"t\", workDir: \"~\"}\n", []string{"actant.cue:4:37: agents.a.workDir: workDir HOME is your home directory itself"}},
		{"tilde slash", tpl + "agents: a: {template: \"t\", workDir: \"~/\"}\n", []string{"agents.a.workDir: workDir HOME is your home directory itself"}},
		{"home absolute", tpl + "agents: a: {template: \"t\", workDir: \"HOME\"}\n", []string{"agents.a.workDir: workDir HOME is your home directory itself"}},
		{"git", tpl + "agents: a: {template: \"t\", workDir: \".git\"}\n", []string{"actant.cue:4:37: agents.a.workDir: workDir .git is inside a .git directory"}},
		{"inside git", tpl + "agents: a: {template: \"t\", workDir: \"sub/.git/hooks\"}\n", []string{"agents.a.workDir: workDir sub/.git/hooks is inside a .git directory"}},
		{"actant", tpl + "agents: a: {template: \"t\", workDir: \".actant\"}\n", []string{"agents.a.workDir: workDir .actant is inside a .actant directory"}},
		{"inside actant", tpl + "agents: a: {template: \"t\", workDir: \"./.actant/x\"}\n", []string{"agents.a.workDir: workDir .actant/x is inside a .actant directory"}},
		{"hub template", "hub: h: url: \"https://example.com/h.git\"\nagents: a: {template: \"h@t\", workDir: \"~\"}\n", []string{"agents.a.workDir: workDir HOME is your home directory itself"}},
		{"project below home", tpl + "agents: a: {template: \"t\", workDir: \"~/src/p\"}\n", nil},
		{"dot git in a name", tpl + "agents: a: {template: \"t\", workDir: \"x.git/y\"}\n", nil},
	})
}

func TestWorkDirTildeExpanded(t *testing.T) {
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	cfg := mustLoad(t, map[string]string{"actant.cue": "package actant\ntemplates: t: backend: \"claude-code\"\nagents: a: {template: \"t\", workDir: \"~/src/p\"}\n"})
	r, err := cfg.Resolve("a")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(userHome, "src", "p"); r.Dir != want {
		t.Errorf("Dir = %s, want %s", r.Dir, want)
	}
}
