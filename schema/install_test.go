package schema

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstallArgv: one command in shell words is split as a shell would;
// what a shell would read otherwise (an operator, an expansion, prose
// with a parenthesis, an unclosed quote, "${{") is refused with why.
func TestInstallArgv(t *testing.T) {
	for in, want := range map[string][]string{
		"npm install -g @a/b c":                    {"npm", "install", "-g", "@a/b", "c"},
		`sh -c 'curl -fsSL https://x/i.sh | bash'`: {"sh", "-c", "curl -fsSL https://x/i.sh | bash"},
		"npm i it's":                                   nil,
		`a "b c" d\ e '' "x\"y" "p\q" 'it'\''s'`:       {"a", "b c", "d e", "", `x"y`, `p\q`, "it's"},
		"go install example.com/x@v1.2.3":              {"go", "install", "example.com/x@v1.2.3"},
		"curl https://x/i | bash":                      nil,
		"curl -fsSL https://x | bash, then npm i -g y": nil,
		"install pi (https://x), then npm i -g pi-acp": nil,
		"npm i $PKG":      nil,
		`npm i "$PKG"`:    nil,
		"npm i `x`":       nil,
		"rm -rf *":        nil,
		"ls ~/x":          nil,
		"a # b":           nil,
		"npm i\nrm -rf x": nil,
		"npm i '${{ github.event.inputs.prompt }}'": nil,
		"": nil,
	} {
		got, err := InstallArgv(in)
		if want == nil {
			if err == nil {
				t.Errorf("%q: split to %q, want refused", in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
}

// TestGitHubInstallRefused: validate refuses an install that is not one
// command at its field, and an employee on GitHub whose backend has no
// install command (pi's is a note) at the agent, saying why; off GitHub
// the same employee loads.
func TestGitHubInstallRefused(t *testing.T) {
	base := strings.NewReplacer("INTERVAL", "30m", "PATTERN", "0 9 * * 1", "SHAPE", "resident", "SVC", "").Replace(deployBase)
	for _, tc := range []struct{ old, new, want string }{
		{`backend:   "claude-code"`, `backend:   "pi"`, `agents.e: agent "e" on GitHub Actions: backend "pi" has no install command for the workflow to run (its installNote says "install pi`},
		{"templates: svc:", `backends: "claude-code": install: "curl -fsSL https://x | bash, then npm i -g y"` + "\ntemplates: svc:", `backends."claude-code".install: backend "claude-code": install "curl -fsSL https://x | bash, then npm i -g y" is not one command: it holds '|' outside quotes`},
	} {
		src := strings.Replace(base, tc.old, tc.new, 1)
		_, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": src}), filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		if !errors.As(err, &ds) || len(ds.Errors()) != 1 || !strings.Contains(ds.Errors()[0].String(), tc.want) {
			t.Errorf("%s: %v, want one error %s", tc.new, err, tc.want)
		}
	}
	off := strings.Replace(strings.Replace(base, `backend:   "claude-code"`, `backend:   "pi"`, 1), `engines: ["kubernetes", "github"]`, `engines: ["kubernetes"]`, 1)
	if _, err := LoadDir(writeWorkspace(t, map[string]string{"actant.cue": off}), filepath.Join(t.TempDir(), "home")); err != nil {
		t.Errorf("pi off GitHub: %v", err)
	}
}
