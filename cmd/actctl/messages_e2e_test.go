package main

import (
	"os"
	"path/filepath"
	"runtime"
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

// TestConfigMistakesE2E: common mistakes in actant.cue each read as the
// problem in actctl's words, at the right place, once; apply writes
// nothing (issue #22 item 9). An agent declared twice (in one file or two)
// is reported at both places naming the other; a value of the wrong type
// says what is wanted, in one line, without CUE's types (`[...#Ref]`) or a
// dump of the schema's struct; a struct that only has a mistake inside is
// reported by that mistake alone; a missing "}" points at the brace left
// open; a misspelled field gets "did you mean"; a cron entry with two
// mistakes reports both.
func TestConfigMistakesE2E(t *testing.T) {
	const head = "package actant\n\ntemplates: dev: backend: \"claude-code\"\ntemplates: fixer: backend: \"claude-code\"\n"
	for _, tc := range []struct {
		name, src string
		extra     map[string]string
		want      string
	}{
		{"agent declared twice", head + "agents: a: template: \"dev\"\nagents: a: template: \"fixer\"\n", nil,
			`actctl: ROOT/actant.cue:5:22: agents.a.template: agent "a" is declared twice: template "dev" here, "fixer" at ROOT/actant.cue:6:22` + "\n" +
				`actctl: ROOT/actant.cue:6:22: agents.a.template: agent "a" is declared twice: template "fixer" here, "dev" at ROOT/actant.cue:5:22` + "\n"},
		{"agent declared in two files", head + "agents: a: template: \"dev\"\n", map[string]string{"team.cue": "package actant\n\nagents: a: {template: \"fixer\"}\n"},
			`actctl: ROOT/actant.cue:5:22: agents.a.template: agent "a" is declared twice: template "dev" here, "fixer" at ROOT/team.cue:3:23` + "\n" +
				`actctl: ROOT/team.cue:3:23: agents.a.template: agent "a" is declared twice: template "fixer" here, "dev" at ROOT/actant.cue:5:22` + "\n"},
		{"template field declared twice", head + "templates: dev: backend: \"codex\"\nagents: a: template: \"dev\"\n", nil,
			`actctl: ROOT/actant.cue:3:26: templates.dev.backend: template "dev" is declared twice: backend "claude-code" here, "codex" at ROOT/actant.cue:5:26` + "\n" +
				`actctl: ROOT/actant.cue:5:26: templates.dev.backend: template "dev" is declared twice: backend "codex" here, "claude-code" at ROOT/actant.cue:3:26` + "\n"},
		{"a string for a list", head + "templates: rev: {backend: \"claude-code\", skills: \"review\"}\nagents: a: template: \"rev\"\n", nil,
			`actctl: ROOT/actant.cue:5:50: templates.rev.skills: want a list of names, got "review"` + "\n"},
		{"a number in a list of names", head + "templates: rev: {backend: \"claude-code\", skills: [1]}\nagents: a: template: \"rev\"\n", nil,
			`actctl: ROOT/actant.cue:5:51: templates.rev.skills[0]: want a string, got 1` + "\n"},
		{"an empty command", head + "mcpServers: m: {command: \"\"}\n", nil,
			`actctl: ROOT/actant.cue:5:26: mcpServers.m.command: want a non-empty string, got ""` + "\n"},
		{"not a version", head + "templates: rev: {backend: \"claude-code\", version: \"one\"}\n", nil,
			`actctl: ROOT/actant.cue:5:51: templates.rev.version: want a semantic version such as "1.2.0", got "one"` + "\n"},
		{"an unknown preset", head + "templates: rev: {backend: \"claude-code\", permissions: \"yolo\"}\nagents: a: template: \"rev\"\n", nil,
			`actctl: ROOT/actant.cue:5:55: templates.rev.permissions: "yolo" is not one of "permissive", "readonly", "restricted", "standard", or a struct (allow, deny, ask, defaultMode, additionalDirectories)` + "\n"},
		{"a mistake inside a struct", head + "templates: rev: {backend: \"claude-code\", permissions: {allow: \"Read\"}}\nagents: a: template: \"rev\"\n", nil,
			`actctl: ROOT/actant.cue:5:63: templates.rev.permissions.allow: want a list of strings, got "Read"` + "\n"},
		{"a number for a string", head + "agents: a: {template: \"dev\", launchMode: 3}\n", nil,
			`actctl: ROOT/actant.cue:5:42: agents.a.launchMode: want a string, got 3` + "\n"},
		{"missing brace", head + "templates: rev: {\n\tbackend: \"claude-code\"\n\tskills: [\"a\"]\nagents: a: template: \"dev\"\n// a { in a comment\n", nil,
			`actctl: ROOT/actant.cue:5:17: this "{" is never closed: the file ends before its "}"` + "\n"},
		{"missing bracket", head + "templates: rev: {backend: \"claude-code\", skills: [\"a\"}\n", nil,
			`actctl: ROOT/actant.cue:5:50: this "[" is never closed: a "}" at 5:54 comes before its "]"` + "\n"},
		{"misspelled template field", head + "templates: rev: {backend: \"claude-code\", skill: [\"a\"]}\n", nil,
			`actctl: ROOT/actant.cue:5:42: templates.rev.skill: unknown field "skill" (did you mean "skills"?)` + "\n"},
		{"misspelled agent field", head + "agents: a: {template: \"dev\", workdir: \".\"}\n", nil,
			`actctl: ROOT/actant.cue:5:30: agents.a.workdir: unknown field "workdir" (did you mean "workDir"?)` + "\n"},
		{"misspelled cron field", head + "templates: emp: {backend: \"claude-code\", archetype: \"employee\", schedule: cron: [{patern: \"0 9 * * *\", prompt: \"x\"}]}\n", nil,
			`actctl: ROOT/actant.cue:5:83: templates.emp.schedule.cron[0].patern: unknown field "patern" (did you mean "pattern"?)` + "\n"},
		{"cron entry with two mistakes", head + "templates: emp: {backend: \"claude-code\", archetype: \"employee\", schedule: cron: [{pattern: \"61 * * * *\", prompt: \"x\", timezone: \"Mars/Base\"}]}\nagents: e: template: \"emp\"\n", nil,
			`actctl: ROOT/actant.cue:5:92: templates.emp.schedule.cron[0].pattern: invalid cron pattern "61 * * * *": end of range (61) above maximum (59): "61"` + "\n" +
				`actctl: ROOT/actant.cue:5:129: templates.emp.schedule.cron[0].timezone: unknown time zone "Mars/Base": give an IANA name such as "Europe/Paris" or "UTC"` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			badConfig(t, tc.src, tc.extra, tc.want, validateArgs, applyArgs)
		})
	}
}

// TestPromptPlaceholderE2E: a placeholder a prompt does not declare among
// its variables is an error at the placeholder (not the prompt or the
// agent), with "did you mean" for a close variable, and nothing is
// written; a prompt whose placeholders are all declared is applied with
// them filled (issue #22 item 10).
func TestPromptPlaceholderE2E(t *testing.T) {
	const tail = "templates: dev: {backend: \"claude-code\", prompts: [\"ops\"], vars: {service: \"billing\", team: \"core\"}}\nagents: dev: template: \"dev\"\n"
	for _, tc := range []struct{ name, prompt, want string }{
		{"misspelled", "prompts: ops: {\n\tcontent: \"\"\"\n\t\tYou run {{service}}.\n\t\tPage {{ servce }} first.\n\t\t\"\"\"\n\tvariables: [\"service\", \"team\"]\n}\n",
			`actctl: ROOT/actant.cue:6:8: prompts.ops.content: placeholder {{servce}} is not among the prompt's variables (did you mean {{service}}?)` + "\n"},
		{"undeclared", "prompts: ops: {content: \"You run {{service}} for {{owner}}.\", variables: [\"service\", \"team\"]}\n",
			`actctl: ROOT/actant.cue:3:50: prompts.ops.content: placeholder {{owner}} is not among the prompt's variables (service, team): add it to variables, or correct it` + "\n"},
		{"none declared", "prompts: ops: {content: \"You run {{service}}.\", variables: []}\n",
			`actctl: ROOT/actant.cue:3:34: prompts.ops.content: placeholder {{service}} is not among the prompt's variables (it declares none): add it to variables, or remove it` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			badConfig(t, "package actant\n\n"+tc.prompt+tail, nil, tc.want, validateArgs, applyArgs)
		})
	}
	dir := t.TempDir()
	writeConfig(t, dir, "package actant\n\nprompts: ops: {content: \"You run {{service}} for {{ team }}; keep {{ .Field }}.\", variables: [\"service\", \"team\"]}\n"+tail)
	if r := actctl(t, dir, "", "apply"); r.Code != 0 || r.Stderr != "" {
		t.Fatalf("apply: exit %d\n%s", r.Code, r.Stderr)
	}
	if got := read(t, filepath.Join(dir, "CLAUDE.md")); !strings.Contains(got, "You run billing for core; keep {{ .Field }}.") {
		t.Errorf("CLAUDE.md:\n%s", got)
	}
}

// TestHubAgentWorkDirE2E: an agent whose template comes from a hub has
// its workDir checked once the hub is read: a tool template's workDir
// that does not exist is refused (and not created), a workDir given to an
// instance archetype's agent is refused; an existing one is used (issue
// #22 item 8).
func TestHubAgentWorkDirE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file:// URL of a temporary path")
	}
	repo := filepath.Join(t.TempDir(), "hub")
	writeFiles(t, repo, map[string]string{
		"actant.json":             `{"name":"h","version":"1.0.0"}`,
		"templates/reviewer.json": `{"name":"reviewer","version":"1.0.0","archetype":"tool","backend":{"type":"claude-code"}}`,
		"templates/mirror.json":   `{"name":"mirror","version":"1.0.0","archetype":"repo","backend":{"type":"claude-code"}}`,
	})
	hubGit(t, repo, "init", "-q", "-b", "main")
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "one")
	head := "package actant\n\nhub: team: url: \"file://" + repo + "\"\n"
	home := t.TempDir()
	for _, tc := range []struct{ agent, want string }{
		{`agents: rev: {template: "team@reviewer", workDir: "srcc"}`,
			`actctl: ROOT/actant.cue:4:51: agents.rev.workDir: workDir ROOT/srcc does not exist; actctl does not create it (did you mean "src"?)` + "\n"},
		{`agents: mir: {template: "team@mirror", workDir: "src"}`,
			`actctl: ROOT/actant.cue:4:49: agents.mir.workDir: workDir is only used by archetypes whose workspace is "project"; "mir" (archetype repo) lives in $ACTANT_HOME/instances/mir` + "\n"},
	} {
		base := t.TempDir()
		dir := filepath.Join(base, "ws")
		writeFiles(t, dir, map[string]string{"actant.cue": head + tc.agent + "\n", "src/main.go": "package main\n"})
		// The hub is fetched into the cache first; only then the agent
		// can be checked.
		before := listFiles(t, base)
		for _, args := range [][]string{{"validate"}, {"apply"}} {
			r := actctl(t, dir, home, args...)
			want := strings.ReplaceAll(tc.want, "ROOT", dir)
			if r.Code != 1 || !strings.HasSuffix(r.Stderr, want) {
				t.Errorf("%v: exit %d, stderr:\n%s\nwant it to end with:\n%s", args, r.Code, r.Stderr, want)
			}
			if after := listFiles(t, base); !slices.Equal(before, after) {
				t.Errorf("%v wrote files: %v", args, after)
			}
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": head + `agents: rev: {template: "team@reviewer", workDir: "src"}` + "\n", "src/main.go": "package main\n"})
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s", r.Code, r.Stderr)
	}
	assertNotWritten(t, dir, "apply", "CLAUDE.md")
	if _, err := os.Stat(filepath.Join(dir, "src", "CLAUDE.md")); err != nil {
		t.Errorf("the agent's file in its workDir: %v", err)
	}
}
