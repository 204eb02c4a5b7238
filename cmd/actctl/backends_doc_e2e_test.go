package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// backendExample is the worked example of docs/backends.md: Kiro declared
// as a backend of the user's own, in CUE alone.
const backendExample = "testdata/backend-example.cue"

// exampleWorkspace uses every layout the example declares; backend is the
// agent's backend.
func exampleWorkspace(backend string) string {
	return `
skills: pdf: {description: "Fill PDF forms", content: "Use pdftk."}
commands: "fix-issue": {description: "Fix an issue", content: "Fix #$ARGUMENTS"}
prompts: rules: content: "Run make test before you commit."
ignore: secrets: patterns: [".env", "secrets/"]
mcpServers: {
	fs: {command: "fs-mcp", args: ["."], env: TOKEN: "${TOKEN}"}
	docs: url: "https://docs.example/mcp"
}
templates: tester: {backend: "` + backend + `", description: "Writes tests", prompts: ["rules"]}
templates: dev: {backend: "` + backend + `", prompts: ["rules"], skills: ["pdf"], commands: ["fix-issue"], subAgents: ["tester"], mcpServers: ["fs", "docs"], ignore: ["secrets"]}
agents: dev: template: "dev"
`
}

// TestBackendsDocExample: the CUE that docs/backends.md quotes is the
// testdata file, byte for byte; applied, the backend it declares (data
// only) is declared as the built-in kiro is and writes exactly the files
// it writes, and `get backends` lists it with its ACP command.
func TestBackendsDocExample(t *testing.T) {
	example := read(t, backendExample)
	doc := read(t, filepath.Join("..", "..", "docs", "backends.md"))
	if got := quotedCUE(t, doc, "<!-- example: cmd/actctl/"+backendExample+" -->"); got != example {
		t.Errorf("docs/backends.md quotes\n%s\nbut %s holds\n%s", got, backendExample, example)
	}

	trees := map[string]map[string]string{}
	for _, backend := range []string{"kiro", "my-kiro"} {
		dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
		writeConfig(t, dir, example+exampleWorkspace(backend))
		res := mustApply(t, dir, home)
		if len(res.Warnings) != 0 {
			t.Errorf("%s: warnings %v", backend, res.Warnings)
		}
		trees[backend] = map[string]string{}
		for _, f := range filesExceptMeta(t, dir) {
			if f != "actant.cue" && f != "actant.owned" {
				trees[backend][f] = read(t, filepath.Join(dir, f))
			}
		}
		if backend == "my-kiro" {
			r := actctl(t, dir, home, "get", "backends")
			if !strings.Contains(r.Stdout, "my-kiro") || !strings.Contains(r.Stdout, "kiro-cli acp") {
				t.Errorf("get backends:\n%s", r.Stdout)
			}
			sameBackend(t, dir, home, "kiro", "my-kiro")
		}
	}
	builtin, mine := trees["kiro"], trees["my-kiro"]
	for _, f := range []string{"AGENTS.md", ".kiro/skills/pdf/SKILL.md", ".kiro/prompts/fix-issue.md", ".kiro/agents/tester.md", ".kiro/settings/mcp.json", ".kiroignore"} {
		if _, ok := mine[f]; !ok {
			t.Errorf("my-kiro did not write %s", f)
		}
	}
	for f, b := range builtin {
		if mine[f] != b {
			t.Errorf("%s: built-in kiro wrote\n%s\nmy-kiro wrote\n%s", f, b, mine[f])
		}
	}
	for f := range mine {
		if _, ok := builtin[f]; !ok {
			t.Errorf("my-kiro wrote %s, built-in kiro did not", f)
		}
	}
}

// quotedCUE returns the ```cue block that follows marker in doc.
func quotedCUE(t *testing.T, doc, marker string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, marker)
	if !ok {
		t.Fatalf("docs/backends.md lacks %q", marker)
	}
	_, rest, ok = strings.Cut(rest, "```cue\n")
	if !ok {
		t.Fatalf("no ```cue block after %q", marker)
	}
	block, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatalf("the ```cue block after %q is not closed", marker)
	}
	return block
}

// sameBackend checks that backends a and b are declared alike (commands,
// modes, install hint, files, trust), as `get backends -o json` shows
// them: the example is the built-in's whole declaration.
func sameBackend(t *testing.T, dir, home, a, b string) {
	t.Helper()
	r := actctl(t, dir, home, "-o", "json", "get", "backends")
	var list []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatalf("get backends -o json: %v\n%s", err, r.Stdout)
	}
	byName := map[string]map[string]json.RawMessage{}
	for _, be := range list {
		var name string
		json.Unmarshal(be["name"], &name)
		delete(be, "name")
		byName[name] = be
	}
	ja, _ := json.Marshal(byName[a])
	jb, _ := json.Marshal(byName[b])
	if len(byName[a]) == 0 || string(ja) != string(jb) {
		t.Errorf("backend %s:\n%s\nbackend %s:\n%s", a, ja, b, jb)
	}
}
