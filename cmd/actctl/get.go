package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
		Name:         "get",
		Usage:        "list agents | templates | backends | skills | prompts | commands | mcp | hooks | webhooks (only NAME... when given)",
		ArgsUsage:    "KIND [NAME...]",
		OnUsageError: usageErrors,
		Action:       getCmd,
	})
}

// getKinds maps the kinds `get` accepts to their listing functions.
var getKinds = map[string]func(*schema.Config) ([]string, [][]string, any){
	"agents":    listAgents,
	"templates": listTemplates,
	"backends":  listBackends,
	"skills":    listSkills,
	"prompts":   listPrompts,
	"commands":  listCommands,
	"mcp":       listMCP,
	"hooks":     listHooks,
	"webhooks":  listWebhooks,
}

func getCmd(c *cli.Context) error {
	g := globalsOf(c)
	kind := c.Args().First()
	if c.NArg() == 0 {
		return usageError("get: want one of %s", strings.Join(slices.Sorted(maps.Keys(getKinds)), ", "))
	}
	kind, err := getKind(kind)
	if err != nil {
		return err
	}
	list := getKinds[kind]
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	header, rows, js := list(cfg)
	if kind == "hooks" {
		rows, js = withRuntimeHooks(g, rows, js.([]hookJSON))
	}
	if names := c.Args().Tail(); len(names) > 0 {
		if rows, js, err = onlyNamed(kind, rows, js, names); err != nil {
			return err
		}
	}
	if g.JSON() {
		return g.PrintJSON(js)
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// The JSON shapes of `get -o json` are part of the stable interface
// (documented in docs/json.md): arrays of objects sorted by name.

type agentJSON struct {
	Name      string `json:"name"`
	Template  string `json:"template"`
	Backend   string `json:"backend"`
	Archetype string `json:"archetype"`
	Workspace string `json:"workspace"`
	Dir       string `json:"dir"`
	Conflict  string `json:"workDirConflict"`
	// Adhoc: created by actctl proxy (recorded in .actant/adhoc.json),
	// not declared in the config; `actctl delete` removes it.
	Adhoc bool `json:"adhoc,omitempty"`
}

func listAgents(cfg *schema.Config) ([]string, [][]string, any) {
	out := []agentJSON{}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		a := cfg.Agents[name]
		from := "config"
		if a.Adhoc {
			from = "proxy"
		}
		r, err := cfg.Resolve(name)
		if err != nil {
			out = append(out, agentJSON{Name: name, Template: a.Template, Adhoc: a.Adhoc})
			rows = append(rows, []string{name, a.Template, "?", "?", "(" + err.Error() + ")", from})
			continue
		}
		out = append(out, agentJSON{Name: name, Template: r.TemplateName, Backend: r.BackendName,
			Archetype: r.ArchetypeName, Workspace: r.Archetype.Workspace, Dir: r.Dir, Conflict: r.Conflict, Adhoc: a.Adhoc})
		rows = append(rows, []string{name, r.TemplateName, r.BackendName, r.ArchetypeName, r.Dir, from})
	}
	return []string{"NAME", "TEMPLATE", "BACKEND", "ARCHETYPE", "WORKDIR", "FROM"}, rows, out
}

type templateJSON struct {
	Name string `json:"name"`
	schema.Template
}

func listTemplates(cfg *schema.Config) ([]string, [][]string, any) {
	out := []templateJSON{}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(cfg.Templates)) {
		t := cfg.Templates[name]
		out = append(out, templateJSON{Name: name, Template: t})
		rows = append(rows, []string{name, t.Version, t.Backend, t.Archetype, count(len(t.Skills)), t.Description})
	}
	return []string{"NAME", "VERSION", "BACKEND", "ARCHETYPE", "SKILLS", "DESCRIPTION"}, rows, out
}

type backendJSON struct {
	Name string `json:"name"`
	schema.Backend
}

func listBackends(cfg *schema.Config) ([]string, [][]string, any) {
	out := []backendJSON{}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(cfg.Backends)) {
		b := cfg.Backends[name]
		b.Modes = b.ServedModes()
		out = append(out, backendJSON{Name: name, Backend: b})
		acp := "-"
		if b.ACP != nil {
			acp = strings.TrimSpace(b.ACP.Command + " " + strings.Join(b.ACP.Args, " "))
		}
		rows = append(rows, []string{name, strings.Join(b.Modes, ","), acp, strings.Join(b.Files.Instructions, ",")})
	}
	return []string{"NAME", "MODES", "ACP", "INSTRUCTIONS"}, rows, out
}

type skillJSON struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Source      string   `json:"source,omitempty"`
	Files       []string `json:"files"`
	Paths       []string `json:"paths,omitempty"`
}

func listSkills(cfg *schema.Config) ([]string, [][]string, any) {
	out := []skillJSON{}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(cfg.Skills)) {
		s := cfg.Skills[name]
		files := append([]string{}, slices.Sorted(maps.Keys(s.Files))...) // never null (docs/json.md)
		src := s.Source
		if src == "" {
			src = "inline"
		}
		out = append(out, skillJSON{Name: name, Description: s.Description, Source: s.Source, Files: files, Paths: s.Paths})
		rows = append(rows, []string{name, src, count(len(files)), s.Description})
	}
	return []string{"NAME", "SOURCE", "FILES", "DESCRIPTION"}, rows, out
}

type promptJSON struct {
	Name string `json:"name"`
	schema.Prompt
}

func listPrompts(cfg *schema.Config) ([]string, [][]string, any) {
	out := []promptJSON{}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(cfg.Prompts)) {
		p := cfg.Prompts[name]
		out = append(out, promptJSON{Name: name, Prompt: p})
		rows = append(rows, []string{name, strings.Join(p.Variables, ","), p.Description})
	}
	return []string{"NAME", "VARIABLES", "DESCRIPTION"}, rows, out
}

type mcpJSON struct {
	Name string `json:"name"`
	schema.MCPServer
}

func listMCP(cfg *schema.Config) ([]string, [][]string, any) {
	out := []mcpJSON{}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		s := cfg.MCPServers[name]
		out = append(out, mcpJSON{Name: name, MCPServer: s})
		target := s.URL
		kind := "remote"
		if s.Command != "" {
			kind, target = "stdio", strings.TrimSpace(s.Command+" "+strings.Join(s.Args, " "))
		}
		rows = append(rows, []string{name, kind, target})
	}
	return []string{"NAME", "TYPE", "TARGET"}, rows, out
}

type commandJSON struct {
	Name string `json:"name"`
	schema.SlashCommand
	// UsedBy are the templates that list the command, sorted.
	UsedBy []string `json:"usedBy"`
}

func listCommands(cfg *schema.Config) ([]string, [][]string, any) {
	out := []commandJSON{}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(cfg.Commands)) {
		c := cfg.Commands[name]
		used := usedBy(cfg, func(t schema.Template) []string { return t.Commands }, name)
		out = append(out, commandJSON{Name: name, SlashCommand: c, UsedBy: used})
		rows = append(rows, []string{name, dash(strings.Join(used, ",")), c.Description})
	}
	return []string{"NAME", "TEMPLATES", "DESCRIPTION"}, rows, out
}

// usedBy lists the templates whose refs (as refs returns them) name ref.
func usedBy(cfg *schema.Config, refs func(schema.Template) []string, ref string) []string {
	out := []string{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Templates)) {
		if slices.Contains(refs(cfg.Templates[name]), ref) {
			out = append(out, name)
		}
	}
	return out
}

type hookJSON struct {
	Name string `json:"name"`
	schema.Hook
	// Origin is where the hook comes from: originConfig, or "agent NAME
	// (runtime)" for an employee's subscription (docs/runtime.md).
	Origin string `json:"origin"`
}

// originConfig is the origin of the hooks actant.cue declares.
const originConfig = "actant.cue"

func listHooks(cfg *schema.Config) ([]string, [][]string, any) {
	out := []hookJSON{}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(cfg.Hooks)) {
		h := cfg.Hooks[name]
		if h.Run != nil && h.Run.Args == nil {
			run := *h.Run
			run.Args = []string{} // a list, never null (docs/json.md)
			h.Run = &run
		}
		origin := originConfig
		if h.Template != "" {
			origin = "template " + h.Template + " (hub)"
		}
		out = append(out, hookJSON{Name: name, Hook: h, Origin: origin})
		rows = append(rows, hookRow(out[len(out)-1]))
	}
	return []string{"NAME", "ON", "AGENTS", "ACTION", "ORIGIN"}, rows, out
}

// hookRow is a hook's row in `get hooks`.
func hookRow(h hookJSON) []string {
	agents := "*"
	if len(h.Agents) > 0 {
		agents = strings.Join(h.Agents, ",")
	}
	return []string{h.Name, h.On, agents, hookAction(h.Hook), h.Origin}
}

// hookAction is what a hook does, in one line: the command it runs or
// the agent it prompts.
func hookAction(h schema.Hook) string {
	switch {
	case h.Run != nil:
		return "run " + strings.TrimSpace(h.Run.Command+" "+strings.Join(h.Run.Args, " "))
	case h.Prompt != nil:
		return "prompt " + h.Prompt.Agent
	}
	return "-"
}

// dash is s, or "-" when s is empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func count(n int) string { return fmt.Sprint(n) }

// plural counts n things: "1 agent", "2 agents".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
