package hub

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/actctl/actctl/schema"
)

// TestReadTreeActantHub reads the actant-hub-layout fixture and checks the
// mapping of every kind of component onto the config model.
func TestReadTreeActantHub(t *testing.T) {
	c, err := ReadTree(os.DirFS("testdata/actant-hub"), "testdata/actant-hub")
	if err != nil {
		t.Fatal(err)
	}
	if c.Layout != LayoutActantHub || c.Name != "test-hub" {
		t.Fatalf("layout %q name %q", c.Layout, c.Name)
	}
	gs := c.Skills["guided-setup"]
	if !strings.HasPrefix(gs.Content, "# Guided Setup") || gs.Description != "Walk a new user through setup step by step" {
		t.Errorf("directory form must win over the JSON form: %+v", gs)
	}
	if string(gs.Files["references/checklist.md"]) != "- install\n- configure\n" {
		t.Errorf("sibling files must travel with the skill: %v", gs.Files)
	}
	if v := c.Info["skill/guided-setup"].Version; v != "1.2.0" {
		t.Errorf("skill version %q", v)
	}
	if c.Skills["web-research"].Content == "" {
		t.Error("JSON-only skill not read")
	}
	on := c.Templates["actant-onboarder"]
	if on.Archetype != "tool" || on.Backend != "claude-code" || on.Permissions.DefaultMode != "default" || len(on.Permissions.Allow) != 1 {
		t.Errorf("onboarder: %+v", on)
	}
	if strings.Join(on.MCPServers, ",") != "filesystem,memory" {
		t.Errorf("mcpServers names and inline objects: %v", on.MCPServers)
	}
	if c.MCPServers["memory"].Command != "npx" {
		t.Errorf("inline MCP server not registered: %+v", c.MCPServers)
	}
	cu := c.Templates["actant-curator"]
	if cu.Schedule == nil || cu.Schedule.Heartbeat.Interval != "2m" || len(cu.Schedule.Cron) != 1 || cu.Permissions.Preset != "restricted" {
		t.Errorf("curator: %+v %+v", cu, cu.Schedule)
	}
	if cu.SubAgents[0] != "actant-onboarder" {
		t.Errorf("subAgents: %v", cu.SubAgents)
	}
	cc := c.Backends["claude-code"]
	if cc.ACP == nil || cc.ACP.Command != "claude-agent-acp" || cc.ACP.OS["windows"].Command != "claude-agent-acp.cmd" || !cc.HasMode("open") {
		t.Errorf("backend: %+v", cc)
	}
	if pi := c.Backends["pi"]; len(pi.Modes) != 0 {
		t.Errorf("pi has no resolveCommand: acp mode must be dropped, got %v", pi.Modes)
	}
	if _, ok := c.Presets["actant-lite"]; !ok {
		t.Error("preset not read")
	}
	if h := c.Templates["actant-curator"].Hooks; len(h) != 1 || h[0] != (schema.TemplateHook{On: "session:end", Text: "archive"}) {
		t.Errorf("curator's schedule.hooks: %+v", h)
	}
	if sb := c.Sandbox["actant-onboarder"]; sb != `{ "enabled": true }` {
		t.Errorf("onboarder's sandbox: %q", sb)
	}
}

// TestReadTreeActantHubSnapshot reads a snapshot of the real actant-hub
// repository (testdata/actant-hub-snapshot: its components and LICENSE,
// MIT; its README, CONTRIBUTING and registry.json left out).
func TestReadTreeActantHubSnapshot(t *testing.T) {
	const dir = "testdata/actant-hub-snapshot"
	c, err := ReadTree(os.DirFS(dir), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Templates) != 8 || len(c.Skills) < 25 || len(c.Prompts) != 8 {
		t.Fatalf("templates %d skills %d prompts %d", len(c.Templates), len(c.Skills), len(c.Prompts))
	}
	if c.Templates["actant-researcher"].Schedule != nil {
		t.Error("a service with only hooks must end up without a schedule")
	}
	if h := c.Templates["actant-updater"].Hooks; len(h) != 1 || h[0].On != "source:updated" {
		t.Errorf("updater's hook on source:sync-complete: %+v", h)
	}
	if d := strings.Join(c.Dropped["actant-steward"], "\n"); !strings.Contains(d, "hook on user:message dropped") {
		t.Errorf("steward's hook on user:message must be said dropped: %q", d)
	}
	if d := strings.Join(c.Dropped["actant-researcher"], "\n"); !strings.Contains(d, `actctl has no event "research:request"`) {
		t.Errorf("researcher's hook on research:request: %q", d)
	}
	if c.Sandbox["actant-steward"] == "" || len(c.Dropped["actant-updater"]) != 0 {
		t.Errorf("sandboxes: steward %q, updater dropped %q", c.Sandbox["actant-steward"], c.Dropped["actant-updater"])
	}
}

// TestMergeTemplateHooks: a hub template's hooks become prompt hooks of
// each agent of it; an event about an agent is heard for the others only
// (never the agent itself: a loop), and none is made without another
// agent; a workspace hook of the same name wins.
func TestMergeTemplateHooks(t *testing.T) {
	cfg := &schema.Config{Agents: map[string]schema.Agent{"cur": {Template: "h@cur"}, "dev": {Template: "local"}}}
	c := newComponents()
	c.Templates["cur"] = schema.Template{Backend: "claude-code", Hooks: []schema.TemplateHook{{On: "session:end", Text: "archive"}, {On: "source:updated", Text: "moved"}}}
	Merge(cfg, "h", c)
	se, su := cfg.Hooks["cur.session-end"], cfg.Hooks["cur.source-updated"]
	if se.Prompt == nil || se.Prompt.Agent != "cur" || se.Prompt.Text != "archive" || strings.Join(se.Agents, ",") != "dev" || se.Template != "h@cur" {
		t.Errorf("session:end hook: %+v %+v", se, se.Prompt)
	}
	if su.Prompt == nil || len(su.Agents) != 0 {
		t.Errorf("source:updated hook: %+v", su)
	}
	alone := &schema.Config{Agents: map[string]schema.Agent{"cur": {Template: "h@cur"}}, Hooks: map[string]schema.Hook{"cur.source-updated": {On: "idle"}}}
	Merge(alone, "h", c)
	if _, ok := alone.Hooks["cur.session-end"]; ok || alone.Hooks["cur.source-updated"].On != "idle" {
		t.Errorf("alone: %+v", alone.Hooks)
	}
}

func TestReadTreeAgentSkills(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md":                      {Data: []byte("# skills")},
		"review/SKILL.md":                {Data: []byte("---\nname: code-review\ndescription: >\n  Review code\n  carefully\n---\nBody\n")},
		"review/scripts/check.sh":        {Data: []byte("echo hi\n")},
		"nested/deep/lint/SKILL.md":      {Data: []byte("---\ndescription: Lint\n---\nLint body\n")},
		"nested/deep/lint/rules/a.md":    {Data: []byte("a")},
		"nested/deep/lint/sub/SKILL.md":  {Data: []byte("---\nname: sub-skill\ndescription: nested\n---\nx")},
		"nested/deep/lint/sub/extra.txt": {Data: []byte("x")},
	}
	c, err := ReadTree(fsys, "/hub")
	if err != nil {
		t.Fatal(err)
	}
	if c.Layout != LayoutAgentSkills {
		t.Fatalf("layout %q", c.Layout)
	}
	r := c.Skills["code-review"]
	if r.Description != "Review code carefully\n" || r.Content != "Body\n" || string(r.Files["scripts/check.sh"]) != "echo hi\n" {
		t.Errorf("code-review: %+v", r)
	}
	l := c.Skills["lint"]
	if _, ok := l.Files["sub/extra.txt"]; ok || l.Files["rules/a.md"] == nil {
		t.Errorf("nested skills are their own component: %v", l.Files)
	}
	if _, ok := c.Skills["sub-skill"]; !ok {
		t.Error("nested skill not read")
	}
}

func TestReadTreeCUE(t *testing.T) {
	fsys := fstest.MapFS{
		"hub.cue": {Data: []byte(`package actant

skills: review: {description: "Review", content: "Review body"}
skills: lint: {file: "lint.md"}
prompts: sys: content: "You are {{role}}"
mcpServers: fs: {command: "npx", args: ["fs"]}
templates: reviewer: {
	backend: "claude-code"
	skills: ["review", "lint"]
	prompts: ["sys"]
	mcpServers: ["fs"]
}
`)},
		"lint.md": {Data: []byte("---\ndescription: Lint it\n---\nLint body")},
	}
	c, err := ReadTree(fsys, "/hub")
	if err != nil {
		t.Fatal(err)
	}
	if c.Layout != LayoutCUE {
		t.Fatalf("layout %q", c.Layout)
	}
	tm := c.Templates["reviewer"]
	if tm.Version != "0.1.0" || tm.Archetype != "tool" || !tm.Permissions.Unset() || len(tm.Skills) != 2 {
		t.Errorf("schema defaults must apply: %+v", tm)
	}
	if c.Skills["lint"].Content != "Lint body" || c.Skills["lint"].Description != "Lint it" {
		t.Errorf("file skill: %+v", c.Skills["lint"])
	}
}

// TestReadTreeRefusals: every unsafe or invalid hub is refused with the
// offending file named.
func TestReadTreeRefusals(t *testing.T) {
	big := make([]byte, MaxFileSize+1)
	cases := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"manifest ../", fstest.MapFS{"actant.json": {Data: []byte(`{"components":{"skills":["../outside.json"]}}`)}}, `leaves the hub tree`},
		{"manifest absolute", fstest.MapFS{"actant.json": {Data: []byte(`{"components":{"templates":["/etc/passwd"]}}`)}}, `is absolute`},
		{"oversized", fstest.MapFS{"skills/a.json": {Data: big}}, "/hub/skills/a.json: 1048577 bytes is over"},
		{"symlink", fstest.MapFS{"skills/a/SKILL.md": {Data: []byte("../../etc/passwd"), Mode: 0o777 | os.ModeSymlink}}, "/hub/skills/a/SKILL.md: symlinks are not allowed"},
		{"cue file ../", fstest.MapFS{"h.cue": {Data: []byte("package actant\nskills: x: file: \"../x.md\"\n")}}, `leaves the hub tree`},
		{"cue import", fstest.MapFS{"h.cue": {Data: []byte("package actant\nimport \"strings\"\nskills: x: content: strings.ToUpper(\"a\")\n")}}, `imports are not allowed`},
		{"bad archetype", fstest.MapFS{"templates/t.json": {Data: []byte(`{"name":"t","backend":{"type":"x"},"archetype":"robot"}`)}}, `/hub/templates/t.json:1:`},
		{"bad json", fstest.MapFS{"prompts/p.json": {Data: []byte("{\n  \"name\": \"p\",\n  oops\n}")}}, `/hub/prompts/p.json:3:`},
		{"employee without schedule", fstest.MapFS{"templates/e.json": {Data: []byte(`{"backend":{"type":"x"},"archetype":"employee"}`)}}, `needs a schedule`},
		{"bad cron", fstest.MapFS{"templates/e.json": {Data: []byte(`{"backend":{"type":"x"},"archetype":"employee","schedule":{"cron":[{"pattern":"0 9 * *","prompt":"p"}]}}`)}}, `/hub/templates/e.json:1:`},
		{"bad cron message", fstest.MapFS{"templates/e.json": {Data: []byte(`{"backend":{"type":"x"},"archetype":"employee","schedule":{"heartbeat":{"intervalMs":60000,"prompt":"p"},"cron":[{"pattern":"0 9 * *","prompt":"p"}]}}`)}}, `schedule.cron[0].pattern: invalid cron pattern "0 9 * *"`},
		{"bad cron zone", fstest.MapFS{"templates/e.json": {Data: []byte(`{"backend":{"type":"x"},"archetype":"employee","schedule":{"cron":[{"pattern":"@daily","prompt":"p","timezone":"Nowhere/City"}]}}`)}}, `schedule.cron[0].timezone: unknown time zone "Nowhere/City"`},
		{"bad name", fstest.MapFS{"prompts/p.json": {Data: []byte(`{"name":"../evil","content":"x"}`)}}, `invalid name`},
		{"bad version", fstest.MapFS{"prompts/p.json": {Data: []byte(`{"name":"p","version":"latest","content":"x"}`)}}, `not a semantic version`},
		{"cue schema", fstest.MapFS{"h.cue": {Data: []byte("package actant\ntemplates: t: {backend: \"x\", archetype: \"robot\"}\n")}}, `/hub/h.cue:2:`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTree(tc.fsys, "/hub")
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if ds, ok := err.(schema.Diagnostics); ok {
				var lines []string
				for _, d := range ds {
					lines = append(lines, d.String())
				}
				msg = strings.Join(lines, "\n")
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not contain %q", msg, tc.want)
			}
		})
	}
}

func TestPickSemver(t *testing.T) {
	tags := []string{"v0.9.0", "v1.0.0", "v1.1.0", "v1.2.0-rc.1", "1.3.0", "v2.0.0", "not-a-version"}
	for c, want := range map[string]string{
		"^1.0.0": "1.3.0", "~1.1.0": "v1.1.0", "1": "1.3.0", "1.1": "v1.1.0", "1.x": "1.3.0",
		">=1.0.0 <2.0.0": "1.3.0", "*": "v2.0.0", "v1.0.0": "v1.0.0", "^0.9": "v0.9.0", "<1": "v0.9.0",
		">=1.2.0-rc.1 <1.3.0": "v1.2.0-rc.1",
	} {
		got, err := pickSemver(c, tags)
		if err != nil || got != want {
			t.Errorf("pickSemver(%q) = %q, %v; want %q", c, got, err, want)
		}
	}
	if _, err := pickSemver("^3", tags); err == nil {
		t.Error("^3 matched")
	}
}

// TestReadTreeSkillFrontmatter: hub SKILL.md frontmatter is read as YAML
// with every field kept, and invalid frontmatter names the file and line.
func TestReadTreeSkillFrontmatter(t *testing.T) {
	fsys := fstest.MapFS{"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: 'It''s for PDFs'\nlicense: Apache-2.0\nallowed-tools: Read\nmetadata:\n  version: \"2\"\n---\nBody\n")}}
	c, err := ReadTree(fsys, "/hub")
	if err != nil {
		t.Fatal(err)
	}
	s := c.Skills["pdf"]
	if s.Description != "It's for PDFs" || strings.Join(s.Meta.Keys(), ",") != "name,description,license,allowed-tools,metadata" || s.Content != "Body\n" {
		t.Errorf("pdf: description %q keys %v content %q", s.Description, s.Meta.Keys(), s.Content)
	}
	js := fstest.MapFS{"actant.json": {Data: []byte(`{"name":"h"}`)},
		"skills/j.json": {Data: []byte(`{"name":"j","content":"---\nlicense: MIT\ndescription: From the frontmatter\n---\nJ body\n"}`)}}
	c, err = ReadTree(js, "/hub")
	if err != nil {
		t.Fatal(err)
	}
	if j := c.Skills["j"]; j.Content != "J body\n" || j.Description != "From the frontmatter" || strings.Join(j.Meta.Keys(), ",") != "license,description" {
		t.Errorf("json skill: %+v", j)
	}
	bad := fstest.MapFS{"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: a: b\n---\nBody\n")}}
	_, err = ReadTree(bad, "/hub")
	if err == nil || !strings.Contains(err.Error(), "/hub/pdf/SKILL.md:3:1: frontmatter: invalid YAML") {
		t.Errorf("err = %v", err)
	}
}
