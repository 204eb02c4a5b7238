package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/actctl/actctl/internal/frontmatter"
	"github.com/actctl/actctl/schema"
)

// manifest is actant-hub's actant.json (Actant's PackageManifest).
type manifest struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
	Components  struct {
		Skills    []string `json:"skills"`
		Prompts   []string `json:"prompts"`
		MCP       []string `json:"mcp"`
		Templates []string `json:"templates"`
		Backends  []string `json:"backends"`
	} `json:"components"`
	Presets []string `json:"presets"`
}

// readActantHub reads the actant-hub layout. The component directories are
// scanned (manifests in the wild list files that moved), and files listed in
// the manifest outside those directories are read too; a manifest entry
// that is absolute or climbs out of the tree is refused.
func (r *reader) readActantHub() {
	lists := map[string][]string{}
	if r.exists("actant.json") {
		var m manifest
		if r.decodeJSON("actant.json", &m) {
			r.c.Name, r.c.Version, r.c.Description = m.Name, m.Version, m.Description
			lists["skills"] = m.Components.Skills
			lists["prompts"] = m.Components.Prompts
			lists["mcp"] = m.Components.MCP
			lists["templates"] = m.Components.Templates
			lists["backends"] = m.Components.Backends
			lists["presets"] = m.Presets
		}
	}
	files := map[string][]string{}
	for _, dir := range actantDirs {
		set := map[string]bool{}
		matches, _ := fs.Glob(r.fsys, dir+"/*.json")
		for _, m := range matches {
			set[m] = true
		}
		for _, entry := range lists[dir] {
			if err := checkRel(entry); err != nil {
				r.errorf("actant.json", keyOffset(r.files["actant.json"], entry), "%s: %v", dir, err)
				continue
			}
			entry = path.Clean(entry)
			if !r.exists(entry) {
				if dir == "skills" && r.exists(path.Join(strings.TrimSuffix(entry, ".json"), "SKILL.md")) {
					continue // the directory form is read below
				}
				r.note("%s lists %s, which does not exist", r.display("actant.json"), entry)
				continue
			}
			set[entry] = true
		}
		for f := range set {
			files[dir] = append(files[dir], f)
		}
		sort.Strings(files[dir])
	}
	r.readSkills(files["skills"])
	for _, f := range files["prompts"] {
		r.readPrompt(f)
	}
	for _, f := range files["mcp"] {
		r.readMCP(f)
	}
	for _, f := range files["backends"] {
		r.readBackend(f)
	}
	for _, f := range files["templates"] {
		r.readTemplate(f)
	}
	for _, f := range files["presets"] {
		r.readPreset(f)
	}
}

// componentName is the component's "name" field, else its file's base name.
func componentName(file, name string) string {
	if name != "" {
		return name
	}
	return strings.TrimSuffix(path.Base(file), path.Ext(file))
}

// checkVersion validates an optional semantic version (with or without v).
func (r *reader) checkVersion(file, v string) bool {
	if v == "" {
		return true
	}
	if !semver.IsValid("v" + strings.TrimPrefix(v, "v")) {
		r.errorf(file, keyOffset(r.files[file], "version"), "version %q is not a semantic version (want e.g. 1.2.0)", v)
		return false
	}
	return true
}

// skillJSON is skills/<n>.json.
type skillJSON struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
	Content     string `json:"content"`
}

// readSkills reads skills/<n>.json and skills/<n>/SKILL.md; when both exist
// the directory form wins (it is the source of truth in actant-hub and it
// carries sibling files), taking the JSON's version when SKILL.md has none.
func (r *reader) readSkills(jsonFiles []string) {
	fromJSON := map[string]Info{}
	for _, f := range jsonFiles {
		var s skillJSON
		if !r.decodeJSON(f, &s) {
			continue
		}
		name := componentName(f, s.Name)
		if !r.checkVersion(f, s.Version) {
			continue
		}
		dir := path.Join(path.Dir(f), name)
		if r.exists(path.Join(dir, "SKILL.md")) {
			fromJSON[dir] = Info{Version: s.Version, Description: s.Description}
			continue
		}
		if strings.TrimSpace(s.Content) == "" {
			r.errorf(f, keyOffset(r.files[f], "content"), "skill %q has no content (and no %s/SKILL.md)", name, dir)
			continue
		}
		sk := schema.Skill{Description: s.Description, Source: r.display(f)}
		if err := schema.SplitSkill(&sk, s.Content); err != nil {
			r.errorf(f, keyOffset(r.files[f], "content"), "skill %q content: frontmatter: %v", name, err)
			continue
		}
		in := Info{Kind: KindSkill, Name: name, Version: s.Version, Description: sk.Description, File: f,
			Digest: digestOf(map[string][]byte{path.Base(f): r.files[f]}), Pos: r.pos(f, 0)}
		if r.addInfo(in) {
			r.c.Skills[name] = sk
		}
	}
	dirs, _ := fs.Glob(r.fsys, "skills/*/SKILL.md")
	for _, m := range dirs {
		r.readSkillDir(path.Dir(m), fromJSON[path.Dir(m)], "")
	}
}

// readAgentSkills reads every **/SKILL.md under root: the Agent Skills
// layout. A skill's sibling files (recursively, minus nested skills) travel
// with it.
func (r *reader) readAgentSkills(root string) {
	var dirs []string
	_ = fs.WalkDir(r.fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if !d.IsDir() && d.Name() == "SKILL.md" {
			dirs = append(dirs, path.Dir(p))
		}
		return nil
	})
	for _, d := range dirs {
		r.readSkillDir(d, Info{}, "")
	}
}

// readSkillDir reads dir/SKILL.md and its sibling files as one skill,
// named key when given, else by its frontmatter name, else by dir.
func (r *reader) readSkillDir(dir string, hint Info, key string) {
	main := path.Join(dir, "SKILL.md")
	data, err := r.read(main)
	if err != nil {
		r.errorf(main, 0, "read %s: %v", r.display(main), err)
		return
	}
	sk := schema.Skill{Source: r.display(main)}
	fm, ok := r.splitSkill(main, data, &sk)
	if !ok {
		return
	}
	sk.Description = firstNonEmpty(sk.Description, hint.Description)
	name := firstNonEmpty(key, fm["name"])
	if name == "" {
		name = path.Base(dir)
		if dir == "." {
			r.errorf(main, 0, "SKILL.md at the root of the hub needs a name in its frontmatter")
			return
		}
	}
	version := firstNonEmpty(fm["version"], hint.Version)
	if !r.checkVersion(main, version) {
		return
	}
	files, exec := r.skillFiles(dir, main)
	all := maps.Clone(files)
	all["SKILL.md"] = data
	in := Info{Kind: KindSkill, Name: name, Version: version, Description: sk.Description, File: main,
		Digest: digestOf(all), Pos: r.pos(main, 0)}
	if r.addInfo(in) {
		if len(exec) == 0 {
			exec = nil
		}
		sk.Files = files
		sk.Executable = exec
		r.c.Skills[name] = sk
	}
}

// skillFiles reads the files of the skill in dir other than its SKILL.md
// (main), by their path in the skill, and which of them are executable;
// a nested skill (a directory with its own SKILL.md) is not part of it.
func (r *reader) skillFiles(dir, main string) (files map[string][]byte, exec map[string]bool) {
	files, exec = map[string][]byte{}, map[string]bool{}
	_ = fs.WalkDir(r.fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			r.errorf(main, 0, "read skill %s: %v", r.display(dir), err)
			return nil
		}
		if d.IsDir() {
			if p != dir && (d.Name() == ".git" || r.exists(path.Join(p, "SKILL.md"))) {
				return fs.SkipDir // a nested skill is its own component
			}
			return nil
		}
		if p == main {
			return nil
		}
		b, err := r.read(p)
		if err != nil {
			r.errorf(p, 0, "%s: %v", r.display(p), err)
			return nil
		}
		rel := strings.TrimPrefix(p, dir+"/")
		if dir == "." {
			rel = p
		}
		files[rel] = b
		if fi, err := fs.Stat(r.fsys, p); err == nil && fi.Mode()&0o111 != 0 {
			exec[rel] = true // git's 100755, kept by the cache's extraction
		}
		return nil
	})
	return files, exec
}

// splitSkill reads the frontmatter of hub file f into sk (see
// schema.SplitSkill: every field kept, the frontmatter's description
// unless sk has one) and returns its name and version. Invalid
// frontmatter is reported at its line in f.
func (r *reader) splitSkill(f string, data []byte, sk *schema.Skill) (map[string]string, bool) {
	if err := schema.SplitSkill(sk, string(data)); err != nil {
		var fe *frontmatter.Error
		if errors.As(err, &fe) {
			r.errorf(f, fe.Offset, "frontmatter: %s", fe.Msg)
		} else {
			r.errorf(f, 0, "%s: frontmatter: %v", r.display(f), err)
		}
		return nil, false
	}
	out := map[string]string{}
	for _, k := range []string{"name", "version"} {
		v, _, err := sk.Meta.Text(k)
		if err != nil {
			r.errorf(f, 0, "%s: frontmatter: %v", r.display(f), err)
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

type promptJSON struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	Content     string   `json:"content"`
	Variables   []string `json:"variables"`
}

func (r *reader) readPrompt(f string) {
	var p promptJSON
	if !r.decodeJSON(f, &p) || !r.checkVersion(f, p.Version) {
		return
	}
	name := componentName(f, p.Name)
	in := Info{Kind: KindPrompt, Name: name, Version: p.Version, Description: p.Description, File: f,
		Digest: digestOf(map[string][]byte{path.Base(f): r.files[f]}), Pos: r.pos(f, 0)}
	if r.addInfo(in) {
		r.c.Prompts[name] = schema.Prompt{Description: p.Description, Content: p.Content, Variables: p.Variables}
	}
}

// mcpJSON is an Actant MCP server config (mcp/*.json) or an inline entry of
// a template's domainContext.mcpServers.
type mcpJSON struct {
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	Description string            `json:"description"`
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	URL         string            `json:"url"`
	Headers     map[string]string `json:"headers"`
}

func (m mcpJSON) server() schema.MCPServer {
	return schema.MCPServer{Command: m.Command, Args: m.Args, Env: m.Env, URL: m.URL, Headers: m.Headers}
}

func (r *reader) readMCP(f string) {
	var m mcpJSON
	if !r.decodeJSON(f, &m) || !r.checkVersion(f, m.Version) {
		return
	}
	name := componentName(f, m.Name)
	if (m.Command == "") == (m.URL == "") {
		r.errorf(f, 0, "MCP server %q needs exactly one of command (local) or url (remote)", name)
		return
	}
	in := Info{Kind: KindMCP, Name: name, Version: m.Version, Description: m.Description, File: f,
		Digest: digestOf(map[string][]byte{path.Base(f): r.files[f]}), Pos: r.pos(f, 0)}
	if r.addInfo(in) {
		r.c.MCPServers[name] = m.server()
	}
}

// platformCommand is Actant's per-platform command: a string, or an object
// keyed by Node's process.platform ("win32", "darwin", "linux", "default").
type platformCommand map[string]string

func (p *platformCommand) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*p = platformCommand{"default": s}
		return nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("want a command string or an object of per-platform command strings: %w", err)
	}
	*p = m
	return nil
}

// command converts to schema.Command; nil when no command is given.
func (p platformCommand) command() *schema.Command {
	if len(p) == 0 {
		return nil
	}
	def := p["default"]
	if def == "" {
		def = firstNonEmpty(p["linux"], p["darwin"], p["win32"])
	}
	c := &schema.Command{Command: def, Args: []string{}}
	for plat, goos := range map[string]string{"win32": "windows", "darwin": "darwin", "linux": "linux", "freebsd": "freebsd"} {
		if v := p[plat]; v != "" && v != def {
			if c.OS == nil {
				c.OS = map[string]schema.Command{}
			}
			c.OS[goos] = schema.Command{Command: v, Args: []string{}}
		}
	}
	return c
}

type backendJSON struct {
	Name           string          `json:"name"`
	Version        string          `json:"version"`
	Description    string          `json:"description"`
	SupportedModes []string        `json:"supportedModes"`
	ResolveCommand platformCommand `json:"resolveCommand"`
	OpenCommand    platformCommand `json:"openCommand"`
	Install        []struct {
		Type         string `json:"type"`
		Package      string `json:"package"`
		Label        string `json:"label"`
		Instructions string `json:"instructions"`
	} `json:"install"`
}

// readBackend maps an Actant backend definition onto schema.Backend:
// resolveCommand is the command that speaks ACP (Actant's "resolve" and
// "acp" modes both start it), openCommand the native UI. A mode without a
// command is dropped with a note rather than producing a backend that
// fails validation. Actant has no file layout for backends; Merge borrows
// the workspace's backend of the same name for that.
func (r *reader) readBackend(f string) {
	var b backendJSON
	if !r.decodeJSON(f, &b) || !r.checkVersion(f, b.Version) {
		return
	}
	name := componentName(f, b.Name)
	out := schema.Backend{Description: b.Description, Modes: []string{}, ACP: b.ResolveCommand.command(), Open: b.OpenCommand.command()}
	seen := map[string]bool{}
	for _, m := range b.SupportedModes {
		switch m {
		case "acp", "resolve":
			if out.ACP == nil {
				r.note("%s: mode %q dropped: no resolveCommand to start", r.display(f), m)
				continue
			}
			for _, x := range []string{schema.ModeACP, schema.ModeResolve} {
				if !seen[x] {
					seen[x] = true
					out.Modes = append(out.Modes, x)
				}
			}
		case "open":
			if out.Open == nil {
				r.note("%s: mode open dropped: no openCommand", r.display(f))
				continue
			}
			if !seen[m] {
				seen[m] = true
				out.Modes = append(out.Modes, m)
			}
		default:
			r.errorf(f, keyOffset(r.files[f], "supportedModes"), "backend %q: unknown mode %q (want resolve, open or acp)", name, m)
			return
		}
	}
	sort.Strings(out.Modes)
	var hints []string
	for _, in := range b.Install {
		hints = append(hints, firstNonEmpty(in.Label, in.Instructions, strings.TrimSpace(in.Type+" "+in.Package)))
	}
	out.InstallNote = strings.Join(hints, "; ") // prose: not a command InstallArgv takes
	in := Info{Kind: KindBackend, Name: name, Version: b.Version, Description: b.Description, File: f,
		Digest: digestOf(map[string][]byte{path.Base(f): r.files[f]}), Pos: r.pos(f, 0)}
	if r.addInfo(in) {
		r.c.Backends[name] = out
	}
}

func (r *reader) readPreset(f string) {
	var p struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Preset
	}
	if !r.decodeJSON(f, &p) || !r.checkVersion(f, p.Version) {
		return
	}
	name := componentName(f, p.Name)
	in := Info{Kind: KindPreset, Name: name, Version: p.Version, Description: p.Description, File: f,
		Digest: digestOf(map[string][]byte{path.Base(f): r.files[f]}), Pos: r.pos(f, 0)}
	if r.addInfo(in) {
		r.c.Presets[name] = p.Preset
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// actantEvents maps the Actant event names that actctl knows under
// another name (docs/runtime.md, "Events", lists actctl's).
var actantEvents = map[string]string{
	"source:sync-complete": schema.EventSourceUpdated,
	"agent:error":          schema.EventError,
}

// actantNoEvent says why an Actant event with no actctl equivalent is
// dropped, where there is more to say than that it does not exist.
var actantNoEvent = map[string]string{
	"user:message": "a person's messages reach the agent itself (proxy, chat, actctl prompt); actctl's user:prompt is a prompt to one named agent, not a message to the system",
}

// templateHook maps one of template tmpl's Actant hooks (schedule.hooks:
// prompt the template's agent on an event) onto actctl's events and adds
// it to hs; one whose event actctl does not have is dropped, noted, and
// recorded in Dropped for validate.
func (r *reader) templateHook(f, tmpl string, hs []schema.TemplateHook, event, prompt string) []schema.TemplateHook {
	on := event
	if m, ok := actantEvents[event]; ok {
		on = m
	}
	if slices.Contains(schema.HookEvents, on) && strings.TrimSpace(prompt) != "" {
		return append(hs, schema.TemplateHook{On: on, Text: prompt})
	}
	why := firstNonEmpty(actantNoEvent[event], fmt.Sprintf("actctl has no event %q (an outside event can come as a webhook: declare webhooks: NAME and a hook on webhook:NAME)", event))
	if strings.TrimSpace(prompt) == "" {
		why = "it has no prompt"
	}
	r.drop(f, tmpl, "hook on %s dropped: %s", event, why)
	return hs
}

// sandbox maps Actant's permissions.sandbox ({enabled, network: {...}}):
// Claude Code reads the same object from its settings file, so a
// claude-code template keeps it (Sandbox; Merge makes it its settings'
// sandbox key); another backend has none, and it is dropped and noted.
func (r *reader) sandbox(f, tmpl, backend string, raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	if backend != "claude-code" || !json.Valid(raw) {
		r.drop(f, tmpl, "permissions.sandbox dropped: backend %s has no sandbox setting actctl writes (Claude Code's settings sandbox is the only one)", backend)
		return
	}
	r.c.Sandbox[tmpl] = string(raw)
}

// drop notes what template tmpl (in file f) lost and records it for the
// template's agents.
func (r *reader) drop(f, tmpl, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.note("%s: %s", r.display(f), msg)
	r.c.Dropped[tmpl] = append(r.c.Dropped[tmpl], msg)
}
