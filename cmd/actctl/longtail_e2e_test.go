package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGetBackendsLongTail: `actctl get backends` lists Devin Desktop,
// Cline, Kiro, Amp, Qwen Code, Goose, Kilo Code and Junie with their ACP
// commands and instruction files.
func TestGetBackendsLongTail(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "package actant\n")
	r := actctl(t, dir, "", "get", "backends")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, want := range []string{"devin acp", "cline --acp", "kiro-cli acp", "amp-acp", "qwen --acp", "QWEN.md", "goose acp", "kilo acp", "junie --acp=true", "droid exec --output-format acp", "auggie --acp", "vibe-acp", "kimi acp", "grok agent stdio"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("get backends lacks %q:\n%s", want, r.Stdout)
		}
	}
}

// TestLongTailBadLayoutE2E: a built-in's layout overridden into one its
// tool cannot read (Qwen's MCP dialect as TOML, Devin's sub-agents with a
// file ending, an ignore file of an unknown format) stops apply with a
// message naming it, and nothing is written.
func TestLongTailBadLayoutE2E(t *testing.T) {
	base := `package actant
mcpServers: fs: command: "fs-mcp"
ignore: secrets: patterns: [".env"]
templates: sub: {backend: "devin"}
templates: t: {backend: "qwen", mcpServers: ["fs"], subAgents: ["sub"], ignore: ["secrets"]}
templates: d: {backend: "devin", subAgents: ["sub"]}
`
	for _, c := range []struct{ extra, msg string }{
		{`agents: a: template: "t"
backends: qwen: files: mcp: format: "toml"`, `dialect qwen is written as json, not "toml"`},
		{`agents: a: template: "d"
backends: devin: files: subAgents: ext: ".md"`, `sub-agents format devin writes <dir>/<name>/AGENT.md: ext ".md" does not apply`},
		{`agents: a: template: "t"
backends: qwen: files: ignore: format: "lines"`, "backends.qwen.files.ignore.format"},
	} {
		dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
		writeConfig(t, dir, base+c.extra+"\n")
		r := actctl(t, dir, home, "apply")
		if r.Code == 0 || !strings.Contains(r.Stderr, c.msg) {
			t.Errorf("%s: exit %d, want %q in:\n%s", c.extra, r.Code, c.msg, r.Stderr)
		}
		if got := listFiles(t, dir); !slices.Equal(got, []string{"actant.cue"}) {
			t.Errorf("%s: files written: %v", c.extra, got)
		}
	}
}

// devinRulesWorkspace has, with the agent, a Devin agent with Claude
// Code rules and settings.
func devinRulesWorkspace(withAgent bool) string {
	cfg := `package actant
templates: d: {backend: "devin", permissions: {allow: ["Bash(go test:*)", "Read(src/**)"], deny: ["Read(.env)"]}, settings: devin: {theme: "dark"}}
`
	if withAgent {
		cfg += "agents: d: {template: \"d\", workDir: \"d\"}\n"
	}
	return cfg
}

// TestDevinPermissionsE2E: Claude Code rules reach Devin's
// .devin/config.json as its scope matchers beside the user's keys and
// the template's settings; re-apply writes nothing; prune gives the
// user's bytes back.
func TestDevinPermissionsE2E(t *testing.T) {
	user := map[string]string{"d/.devin/config.json": "{\n  \"model\": \"swe-1.5\"\n}\n"}
	runArtifact(t, artifactCase{
		user:    user,
		with:    devinRulesWorkspace(true),
		without: devinRulesWorkspace(false),
		check: func(t *testing.T, dir string, r result) {
			var v struct {
				Model       string `json:"model"`
				Theme       string `json:"theme"`
				Permissions struct {
					Allow []string `json:"allow"`
					Deny  []string `json:"deny"`
				} `json:"permissions"`
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, "d/.devin/config.json"))), &v); err != nil {
				t.Fatal(err)
			}
			if v.Model != "swe-1.5" || v.Theme != "dark" || !slices.Equal(v.Permissions.Allow, []string{"Exec(go test)", "Read(src/**)"}) || !slices.Equal(v.Permissions.Deny, []string{"Read(.env)"}) {
				t.Errorf(".devin/config.json: %+v", v)
			}
		},
	})
}

// TestLongTailTrustNotesE2E: after writing the project MCP servers that
// Qwen Code and Amp start only once the user approves them, apply says so
// once per workspace, naming the directory; a re-apply that writes
// nothing says nothing.
func TestLongTailTrustNotesE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
mcpServers: fs: {command: "fs-mcp"}
templates: {
	q: {backend: "qwen", mcpServers: ["fs"]}
	a: {backend: "amp", mcpServers: ["fs"]}
}
agents: {q: {template: "q", workDir: "q"}, a: {template: "a", workDir: "a"}}
`)
	for _, d := range []string{"q", "a"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := actctl(t, dir, home, "apply")
	if r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{
		"actctl: note: Qwen Code asks you to approve the MCP servers of " + filepath.Join(dir, "q") + "/.qwen/settings.json",
		"actctl: note: Amp starts the MCP servers of the workspace settings " + filepath.Join(dir, "a") + "/.amp/settings.json only once you approve them",
	} {
		if strings.Count(r.Stderr, want) != 1 {
			t.Errorf("stderr has %d times %q:\n%s", strings.Count(r.Stderr, want), want, r.Stderr)
		}
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.Contains(r.Stderr, "actctl: note:") {
		t.Errorf("re-apply: exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
}
