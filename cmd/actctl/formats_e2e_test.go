package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// richSkillMD uses the Agent Skills optional fields and YAML forms
// (folded scalar, doubled single quote, nested mapping) that earlier versions dropped
// or mangled.
const richSkillMD = `---
name: pdf
description: >-
  Fill and read PDF forms.
  Use when a PDF is mentioned.
license: 'It''s Apache-2.0'
compatibility: Requires python3
allowed-tools: Bash(python3:*) Read
metadata:
  author: acme
  version: "1.2"
disable-model-invocation: true
---

# PDF

Run scripts/fill.py.
`

// wantSkillMD is what both backends' SKILL.md must hold: the source byte
// for byte, since its frontmatter already names the skill and describes
// it (docs/formats.md; a source without them gets them set in place, every
// other field kept: materialize's TestSkillFrontmatterKept).
const wantSkillMD = richSkillMD

func formatsConfig(withAgents bool) string {
	agents := "agents: {\n\treviewer: template: \"reviewer\"\n\tfixer: template: \"fixer\"\n}\n"
	if !withAgents {
		agents = "agents: {}\n"
	}
	return `package actant

skills: pdf: dir: "skills/pdf"
mcpServers: {
	github: {command: "github-mcp", args: ["stdio"], env: {GITHUB_TOKEN: "${GITHUB_TOKEN}", LOG_LEVEL: "debug", GH_HOST: "${GITHUB_HOST}"}}
	"docs.v2": {command: "docs-mcp"}
}
templates: {
	reviewer: {backend: "claude-code", skills: ["pdf"], mcpServers: ["github"]}
	fixer: {backend: "codex", skills: ["pdf"], mcpServers: ["github", "docs.v2"]}
}
` + agents
}

// TestFormatsE2E applies a dir skill with rich frontmatter to Claude Code
// and Codex and a stdio MCP server with ${VAR} env to both, checks the
// bytes and reads them back as YAML, TOML and JSON, re-applies (nothing
// written) and prunes.
func TestFormatsE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"skills/pdf/SKILL.md": richSkillMD, "skills/pdf/scripts/fill.py": "print('ok')\n"})
	writeConfig(t, dir, formatsConfig(true))

	_, r := applyJSON(t, dir, home)
	if r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, w := range []string{`codex cannot rename an environment variable: env GH_HOST = "${GITHUB_HOST}"`, `mcp server "docs.v2": codex accepts server names`} {
		if !strings.Contains(r.Stderr, w) {
			t.Errorf("stderr lacks warning %q:\n%s", w, r.Stderr)
		}
	}
	for _, p := range []string{".claude/skills/pdf/SKILL.md", ".agents/skills/pdf/SKILL.md"} {
		got := read(t, filepath.Join(dir, p))
		if got != wantSkillMD {
			t.Errorf("%s:\n%s\nwant:\n%s", p, got, wantSkillMD)
		}
		fm, _, _ := strings.Cut(strings.TrimPrefix(got, "---\n"), "\n---\n")
		var back map[string]any
		if err := yaml.Unmarshal([]byte(fm), &back); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if back["description"] != "Fill and read PDF forms. Use when a PDF is mentioned." || back["license"] != "It's Apache-2.0" ||
			back["disable-model-invocation"] != true || back["metadata"].(map[string]any)["version"] != "1.2" {
			t.Errorf("%s read back as %v", p, back)
		}
	}

	codex := read(t, filepath.Join(dir, ".codex/config.toml"))
	if strings.Contains(codex, "${") {
		t.Errorf("codex config holds a literal ${VAR}:\n%s", codex)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `toml:"command"`
			Env     map[string]string `toml:"env"`
			EnvVars []string          `toml:"env_vars"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal([]byte(codex), &cfg); err != nil {
		t.Fatalf(".codex/config.toml: %v\n%s", err, codex)
	}
	gh := cfg.MCPServers["github"]
	if !reflect.DeepEqual(gh.EnvVars, []string{"GH_HOST", "GITHUB_TOKEN"}) || !reflect.DeepEqual(gh.Env, map[string]string{"LOG_LEVEL": "debug"}) {
		t.Errorf("codex github server = %+v\n%s", gh, codex)
	}
	if _, ok := cfg.MCPServers["docs_v2"]; !ok || len(cfg.MCPServers) != 2 {
		t.Errorf("codex server names = %v", cfg.MCPServers)
	}

	var claude struct {
		MCPServers map[string]struct {
			Env map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".mcp.json"))), &claude); err != nil {
		t.Fatal(err)
	}
	if got := claude.MCPServers["github"].Env["GITHUB_TOKEN"]; got != "${GITHUB_TOKEN}" {
		t.Errorf(".mcp.json GITHUB_TOKEN = %q (Claude Code expands ${VAR} itself)", got)
	}

	before := stamps(t, dir)
	if res := mustApply(t, dir, home); res.Counts.Changed != 0 || res.StateWritten || len(res.Items) != 0 {
		t.Fatalf("second apply must be a no-op: %+v %+v", res.Counts, res.Items)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("second apply changed files:\n%s", diffStamps(before, after))
	}

	writeConfig(t, dir, formatsConfig(false))
	if res := mustApply(t, dir, home); res.Counts.Pruned != 2 {
		t.Errorf("prune: %+v", res.Counts)
	}
	want := []string{"actant.cue", "skills/pdf/SKILL.md", "skills/pdf/scripts/fill.py"}
	if got := filesExceptMeta(t, dir); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("after prune: %v, want %v", got, want)
	}
	if got := read(t, filepath.Join(dir, "skills/pdf/SKILL.md")); got != richSkillMD {
		t.Errorf("the source skill changed")
	}
}

// TestInvalidSkillFrontmatterE2E: invalid frontmatter stops validate and
// apply with the SKILL.md line, and nothing is written.
func TestInvalidSkillFrontmatterE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Use when: a PDF\n---\nBody\n"})
	writeConfig(t, dir, formatsConfig(true))
	want := filepath.Join(dir, "skills/pdf/SKILL.md") + ":3:1: skills.pdf: frontmatter: invalid YAML: mapping values are not allowed in this context"
	for _, cmd := range []string{"validate", "apply"} {
		r := actctl(t, dir, home, cmd)
		if r.Code != 1 || !strings.Contains(r.Stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %s", cmd, r.Code, r.Stderr, want)
		}
	}
	assertNotWritten(t, dir, "invalid frontmatter", ".claude", ".agents", ".codex", ".mcp.json", "CLAUDE.md", "AGENTS.md", ".gitignore", ".actant")
}
