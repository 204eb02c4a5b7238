package schema

import (
	"fmt"
	"os"
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
		{"climbs out", tpl + "agents: a: {template: \"t\", workDir: \"../elsewhere\"}\n", []string{`actant.cue:4:37: agents.a.workDir: workDir "../elsewhere" climbs out of the workspace root; give an absolute path to mean a directory outside it`}},
		{"climbs out through a subdirectory", tpl + "agents: a: {template: \"t\", workDir: \"sub/../../x\"}\n", []string{`agents.a.workDir: workDir "sub/../../x" climbs out of the workspace root`}},
		{"climbs out, hub template", "hub: h: url: \"https://example.com/h.git\"\nagents: a: {template: \"h@t\", workDir: \"..\"}\n", []string{`actant.cue:4:39: agents.a.workDir: workDir ".." climbs out of the workspace root`}},
		{"missing", tpl + "agents: a: {template: \"t\", workDir: \"srcc\"}\n", []string{"actant.cue:4:37: agents.a.workDir: workDir srcc does not exist; actctl does not create it (create it first, or correct the path)"}},
		{"missing below home", tpl + "agents: a: {template: \"t\", workDir: \"~/src/p\"}\n", []string{"agents.a.workDir: workDir HOME/src/p does not exist"}},
		{"a file", tpl + "agents: a: {template: \"t\", workDir: \"actant.cue\"}\n", []string{"actant.cue:4:37: agents.a.workDir: workDir actant.cue is not a directory"}},
	})
}

// TestWorkDirExisting: existing project directories, below the root, below
// the home directory or through a name containing .git, are accepted; a
// missing one next to a directory with a close name is refused with that
// name as the hint, and nothing is created.
func TestWorkDirExisting(t *testing.T) {
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	if err := os.MkdirAll(filepath.Join(userHome, "src", "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	const tpl = "package actant\ntemplates: t: backend: \"claude-code\"\n"
	mustLoad(t, map[string]string{
		"actant.cue":    tpl + "agents: a: {template: \"t\", workDir: \"~/src/p\"}\nagents: b: {template: \"t\", workDir: \"x.git/y\"}\n",
		"x.git/y/.keep": "",
	})
	dir := writeWorkspace(t, map[string]string{
		"actant.cue":               tpl + "agents: a: {template: \"t\", workDir: \"services/paymnts\"}\n",
		"services/payments/go.mod": "module x\n",
	})
	_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
	want := filepath.Join(dir, "actant.cue") + `:3:37: agents.a.workDir: workDir ` + filepath.Join(dir, "services", "paymnts") + ` does not exist; actctl does not create it (did you mean "services/payments"?)`
	if err == nil || err.Error() != want {
		t.Errorf("load: %v\nwant %s", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "services", "paymnts")); err == nil {
		t.Errorf("the misspelled workDir was created")
	}
}

func TestWorkDirTildeExpanded(t *testing.T) {
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	if err := os.MkdirAll(filepath.Join(userHome, "src", "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := mustLoad(t, map[string]string{"actant.cue": "package actant\ntemplates: t: backend: \"claude-code\"\nagents: a: {template: \"t\", workDir: \"~/src/p\"}\n"})
	r, err := cfg.Resolve("a")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(userHome, "src", "p"); r.Dir != want {
		t.Errorf("Dir = %s, want %s", r.Dir, want)
	}
}

// TestModes: a backend's modes follow from its commands; only launch
// modes that run the backend over ACP make a backend without acp an
// error, at the position of the field that chose them.
func TestModes(t *testing.T) {
	sched := "schedule: heartbeat: {interval: \"5m\", prompt: \"go\"}"
	runValidation(t, []validationCase{
		{"cursor tool agent", "templates: c: backend: \"cursor\"\nagents: a: template: \"c\"\n", nil},
		{"cursor repo agent", "templates: c: {backend: \"cursor\", archetype: \"repo\"}\nagents: a: template: \"c\"\n", nil},
		{"custom with acp", "backends: custom: acp: command: \"my-acp\"\ntemplates: c: backend: \"custom\"\nagents: a: template: \"c\"\n", nil},
		{"custom with acp as service", "backends: custom: acp: command: \"my-acp\"\ntemplates: c: {backend: \"custom\", archetype: \"service\"}\n", nil},
		{"cursor service", "templates: c: {backend: \"cursor\", archetype: \"service\"}\n",
			[]string{`actant.cue:3:25: templates.c.backend: backend "cursor" has no acp command, but launchMode "acp-service" (archetype "service") runs the agent's backend over ACP; give "cursor" an acp command (backends.cursor.acp: {command: ...})`}},
		{"cursor employee", "templates: c: {backend: \"cursor\", archetype: \"employee\", " + sched + "}\n",
			[]string{`actant.cue:3:25: templates.c.backend: backend "cursor" has no acp command, but launchMode "acp-background" (archetype "employee")`}},
		{"custom without acp as service", "templates: c: {backend: \"custom\", archetype: \"service\"}\n",
			[]string{`templates.c.backend: backend "custom" has no acp command, but launchMode "acp-service"`}},
		{"tool template launched in the background", "templates: c: {backend: \"cursor\", launchMode: \"acp-background\"}\n",
			[]string{`templates.c.backend: backend "cursor" has no acp command, but launchMode "acp-background" (archetype "tool")`}},
		{"agent launched as a service", "templates: c: backend: \"cursor\"\nagents: a: {template: \"c\", launchMode: \"acp-service\"}\n",
			[]string{`actant.cue:4:40: agents.a.launchMode: backend "cursor" has no acp command, but launchMode "acp-service"`}},
		{"modes narrow acp away", "backends: \"claude-code\": modes: [\"open\"]\ntemplates: c: {backend: \"claude-code\", archetype: \"service\"}\n",
			[]string{`templates.c.backend: backend "claude-code" leaves acp out of its modes, but launchMode "acp-service"`}},
		{"mode without its command", "backends: mine: {modes: [\"acp\", \"resolve\"], files: {}}\n",
			[]string{`actant.cue:3:25: backends.mine.modes: backend "mine" lists mode acp but has no acp command`, `backend "mine" lists mode resolve but has no acp command`}},
		{"open mode without its command", "backends: mine: {modes: [\"open\"], acp: command: \"x\", files: {}}\n",
			[]string{`backends.mine.modes: backend "mine" lists mode open but has no open command`}},
	})
}

func TestOfferedModes(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": `package actant
backends: custom: acp: command: "my-acp"
backends: narrowed: {modes: ["acp"], acp: command: "a", open: command: "o", files: {}}
templates: {
	cur: backend: "cursor"
	cus: backend: "custom"
	cc: backend: "claude-code"
	nar: backend: "narrowed"
	emp: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "5m", prompt: "go"}}
}
agents: {
	cur: template: "cur"
	cus: template: "cus"
	cc: template: "cc"
	nar: template: "nar"
	emp: template: "emp"
}
`})
	tests := []struct {
		agent  string
		offers []string
		served []string
	}{
		{"cur", []string{"open"}, []string{"open"}},
		// start needs a launch mode up runs: a tool agent's is direct.
		{"cus", []string{"chat", "run", "proxy"}, []string{"acp", "resolve"}},
		{"cc", []string{"open", "chat", "run", "proxy"}, []string{"acp", "open", "resolve"}},
		{"nar", []string{"chat", "run", "proxy"}, []string{"acp"}},
		{"emp", []string{"start", "run", "proxy"}, []string{"acp", "open", "resolve"}},
	}
	for _, tt := range tests {
		r, err := cfg.Resolve(tt.agent)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Offers(); strings.Join(got, ",") != strings.Join(tt.offers, ",") {
			t.Errorf("%s offers %v, want %v", tt.agent, got, tt.offers)
		}
		if got := r.Backend.ServedModes(); strings.Join(got, ",") != strings.Join(tt.served, ",") {
			t.Errorf("%s's backend serves %v, want %v", tt.agent, got, tt.served)
		}
	}
	if r, _ := cfg.Resolve("cc"); !strings.Contains(r.NotOffered(InteractStart), `agent "cc" does not offer start: its launch mode "direct" is not one `+"`actctl up`"+` runs`) {
		t.Errorf("NotOffered(start) = %s", r.NotOffered(InteractStart))
	}
	r, _ := cfg.Resolve("cur")
	if msg := r.NotOffered(InteractProxy); !strings.Contains(msg, `agent "cur" does not offer proxy: its backend "cursor" has no acp command (it supports open), so it offers open; give backend "cursor" an acp command (`+"`backends: cursor: acp: {command: ...}`"+`)`) {
		t.Errorf("NotOffered = %s", msg)
	}
}

// TestProtectedTargets: no backend layout may write a CUE file, into
// cue.mod/, .git/ or .actant/, or a root actant.* file (actant.lock and
// the records beside it); the error is at the layout field.
func TestProtectedTargets(t *testing.T) {
	mine := func(files string) string {
		return "backends: mine: {acp: command: \"m\", files: " + files + "}\n"
	}
	runValidation(t, []validationCase{
		{"instructions actant.cue", "backends: \"claude-code\": files: instructions: [\"CLAUDE.md\", \"actant.cue\"]\n",
			[]string{`actant.cue:3:61: backends."claude-code".files.instructions[1]: backend "claude-code" may not write actant.cue: it is a *.cue file, which actctl loads as configuration`}},
		{"another cue file", mine(`instructions: ["docs/more.CUE"]`), []string{`backends.mine.files.instructions[0]: backend "mine" may not write docs/more.CUE: it is a *.cue file`}},
		{"lock", mine(`instructions: ["actant.lock"]`), []string{`backends.mine.files.instructions[0]: backend "mine" may not write actant.lock: actant.lock at the root is actctl's own file`}},
		{"root record", mine(`mcp: {path: "actant.owners.json", format: "json", key: "mcpServers"}`), []string{`backends.mine.files.mcp.path: backend "mine" may not write actant.owners.json: actant.owners.json at the root is actctl's own file`}},
		{"cue.mod", mine(`skills: {dir: "cue.mod/pkg", format: "markdown"}`), []string{`backends.mine.files.skills.dir: backend "mine" may not write cue.mod/pkg: it is inside cue.mod/`}},
		{"git", mine(`subAgents: {dir: ".git/hooks", format: "markdown"}`), []string{`backends.mine.files.subAgents.dir: backend "mine" may not write .git/hooks: it is inside .git/`}},
		{"actant dir", mine(`permissions: {path: "./.actant/state.json", format: "json", dialect: "claude"}`), []string{`backends.mine.files.permissions.path: backend "mine" may not write ./.actant/state.json: it is inside .actant/`}},
		{"ordinary names", mine(`instructions: ["AGENTS.md", "docs/actant.md", "cue.md", "x.cue.md"]`), nil},
		{"case-insensitive file systems", mine(`instructions: ["Actant.Lock"]`), []string{`may not write Actant.Lock: Actant.Lock at the root is actctl's own file`}},
	})
}

// TestReservedActctlServer: templates list "actctl" without defining it;
// a definition of that name is refused at its position.
func TestReservedActctlServer(t *testing.T) {
	runValidation(t, []validationCase{
		{"listed", "templates: t: {backend: \"claude-code\", mcpServers: [\"actctl\"]}\n", nil},
		{"defined", "mcpServers: actctl: command: \"mine\"\ntemplates: t: {backend: \"claude-code\", mcpServers: [\"actctl\"]}\n",
			[]string{`actant.cue:3:13: mcpServers.actctl: the MCP server name "actctl" is reserved for actctl's own server (actctl mcp)`}},
		{"typo", "templates: t: {backend: \"claude-code\", mcpServers: [\"actcl\"]}\n", []string{`unknown MCP server "actcl" (did you mean "actctl"?)`}},
	})
}

// TestNotOfferedNamesTheField: a mode an archetype leaves out is refused
// naming the archetype field that allows it and what is offered; an agent
// made from a template (run -t) is named as the template.
func TestNotOfferedNamesTheField(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": `package actant
archetypes: service: interactionModes: ["start", "proxy"]
archetypes: repo: interactionModes: ["chat", "proxy"]
templates: {
	svc: {backend: "claude-code", archetype: "service"}
	rp: {backend: "codex", archetype: "repo"}
}
agents: {api: template: "svc", mirror: template: "rp"}
`})
	for _, tt := range []struct{ agent, mode, want string }{
		{"api", "run", `agent "api" does not offer run: its archetype "service" allows start, proxy, so it offers start, proxy; to allow run, add it to ` + "`archetypes: service: interactionModes`"},
		{"mirror", "run", `agent "mirror" does not offer run: its archetype "repo" allows chat, proxy, so it offers chat, proxy; to allow run, add it to ` + "`archetypes: repo: interactionModes`"},
	} {
		r, err := cfg.Resolve(tt.agent)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.NotOffered(tt.mode); !strings.Contains(got, tt.want) {
			t.Errorf("NotOffered(%s) =\n%s\nwant it to contain\n%s", tt.mode, got, tt.want)
		}
		if got := r.TemplateNotOffered(tt.mode); !strings.HasPrefix(got, fmt.Sprintf("template %q does not offer", r.TemplateName)) {
			t.Errorf("TemplateNotOffered = %s", got)
		}
	}
}
