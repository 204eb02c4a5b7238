package materialize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/actctl/actctl/internal/frontmatter"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/schema"
)

// Options carries what the renderer may know about the world without doing
// I/O itself.
type Options struct {
	// IsTracked reports whether git tracks the slash-separated path rel
	// (relative to the agent's workspace directory, without a trailing
	// slash). Such paths are left out of the .gitignore block: ignoring a
	// tracked file does nothing in git and only confuses readers. nil means
	// nothing is tracked.
	IsTracked func(rel string) bool
	// UserText reports whether the file at the absolute path p holds text
	// outside actctl's blocks (the user's own). The renderer asks it about
	// the instruction files of a backend with shadows (Claude Code's
	// CLAUDE.md and the AGENTS.md it hides); nil means no file does.
	UserText func(p string) bool
}

// Well-known files of a workspace.
const (
	// GitignorePath receives one shared hash-style block (Entry.Shared):
	// one per file, whatever the number of project agents writing there.
	GitignorePath = ".gitignore"
	// ActantJSONPath is the Actant-compatible instance metadata file.
	ActantJSONPath = layout.InstanceRecord
	// SystemPromptPath is written for full materialization (Actant layout).
	SystemPromptPath = "prompts/system.md"
	// MetaDir is actctl's own directory in a workspace: runtime records
	// and proxy logs of the agents working there and, at the workspace
	// root, the state, lock and backups.
	MetaDir = layout.Dir
	// LogsDir is created for full materialization.
	LogsDir = layout.Logs
	// defaultWorkspacePolicy is Actant's default when a template sets none.
	defaultWorkspacePolicy = "persistent"
)

// renderWith computes every entry agent r wants in its workspace, with
// the cache sh shared by the agents of one RenderAgents. It reads only
// cfg and r: no file of the workspace is touched, so the result is a pure
// function of the config (plus o.IsTracked) and can be diffed, cached and
// compared with the state by the reconciler.
//
// Entry contents may share memory with cfg (skill sibling files are not
// copied); callers must treat them as read-only.
func renderWith(cfg *schema.Config, r *schema.Resolved, o Options, sh *shared) (*Target, error) {
	n := 16 + 2*len(r.Template.Skills)
	rd := &renderer{cfg: cfg, r: r, o: o, sh: sh, byPath: make(map[string]int, n), slots: make([]slot, 0, n)}
	if err := rd.render(); err != nil {
		return nil, fmt.Errorf("render agent %q: %w", r.Name, err)
	}
	return rd.target(), nil
}

// slot is the one entry an agent has at a path, plus what produced it so
// a collision can name both sides.
type slot struct {
	e      Entry
	origin string
	keys   map[string]string // joined key path -> origin, for ModeKeys
}

type renderer struct {
	cfg    *schema.Config
	r      *schema.Resolved
	o      Options
	sh     *shared
	byPath map[string]int // path -> index in slots
	slots  []slot
	warns  []string
	// prompts are the template's prompts with vars filled, in order.
	prompts []string
	// denyExtra are Claude Read() rules from the ignore lists that the
	// permissions step merges into its own permissions.deny.
	denyExtra []string
}

func (rd *renderer) warn(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	if !slices.Contains(rd.warns, w) {
		rd.warns = append(rd.warns, w)
	}
}

func (rd *renderer) fill(what, text string, vars map[string]string) string {
	out, missing := fillVars(text, vars)
	for _, m := range missing {
		rd.warn("%s: variable {{%s}} is not set; the placeholder is left as is", what, m)
	}
	return out
}

func (rd *renderer) render() error {
	r := rd.r
	switch r.Archetype.Workspace {
	case schema.WorkspaceProject, schema.WorkspaceInstance:
	default:
		return fmt.Errorf("archetype %q: unknown workspace kind %q", r.ArchetypeName, r.Archetype.Workspace)
	}
	for _, ref := range r.Template.Prompts {
		p, ok := rd.cfg.Prompts[ref]
		if !ok {
			return fmt.Errorf("prompt %q is not declared", ref)
		}
		rd.prompts = append(rd.prompts, rd.fill(fmt.Sprintf("prompt %q", ref), p.Content, r.Vars))
	}
	files := r.Backend.Files
	steps := []func(schema.Files) error{
		rd.instructions, rd.skills, rd.subAgents, rd.promptFiles, rd.commands, rd.mcp, rd.ignore, rd.permissions, rd.settings,
	}
	for _, step := range steps {
		if err := step(files); err != nil {
			return err
		}
	}
	if r.Archetype.Workspace == schema.WorkspaceProject {
		return rd.gitignore()
	}
	return rd.instance()
}

// target assembles the Target. An agent has at most one entry per path,
// so sorting the paths alone gives the "Path, then Mode" order; sorting
// strings instead of Entry values avoids moving large structs around.
func (rd *renderer) target() *Target {
	paths := make([]string, 0, len(rd.slots))
	for i := range rd.slots {
		paths = append(paths, rd.slots[i].e.Path)
	}
	sort.Strings(paths)
	t := &Target{
		Agent:    rd.r.Name,
		Dir:      rd.r.Dir,
		Conflict: rd.r.Conflict,
		Entries:  make([]Entry, len(paths)),
		Warnings: rd.warns,
	}
	t.instructions, t.rules = rd.r.Backend.Files.Instructions, permissionsWord(rd.r.Template.Permissions)
	if l := rd.r.Backend.Files.Skills; l != nil && l.Format == schema.FormatSkillDir {
		t.skillDirs = append([]string{path.Clean(l.Dir)}, l.Reads...)
	}
	if tr := rd.r.Backend.Trust; tr != nil {
		t.TrustPaths, t.TrustNotes = tr.Paths, map[string]string{}
		for _, p := range tr.Paths {
			if n := tr.NoteFor(p); n != "" && rd.noteApplies(tr, p) {
				t.TrustNotes[p] = strings.ReplaceAll(n, "{dir}", rd.r.Dir)
			}
		}
	}
	for i, p := range paths {
		e := rd.slots[rd.byPath[p]].e
		if e.Mode == ModeKeys {
			sort.Slice(e.Keys, func(i, j int) bool { return keyLess(e.Keys[i].Path, e.Keys[j].Path) })
		}
		t.Entries[i] = e
	}
	return t
}

// slotAt returns the slot at path p, or nil.
func (rd *renderer) slotAt(p string) *slot {
	if i, ok := rd.byPath[p]; ok {
		return &rd.slots[i]
	}
	return nil
}

func (rd *renderer) newSlot(s slot) *slot {
	rd.byPath[s.e.Path] = len(rd.slots)
	rd.slots = append(rd.slots, s)
	return &rd.slots[len(rd.slots)-1]
}

func keyLess(a, b []string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// --- entry bookkeeping -------------------------------------------------

func (rd *renderer) checkPath(p, origin string) error {
	if err := checkRel(p); err != nil {
		return fmt.Errorf("%s: refusing path %q: %w", origin, p, err)
	}
	return nil
}

func (rd *renderer) addFile(p string, content []byte, origin string) error {
	if err := rd.checkPath(p, origin); err != nil {
		return err
	}
	if old := rd.slotAt(p); old != nil {
		return fmt.Errorf("%s and %s both render %q", old.origin, origin, p)
	}
	rd.newSlot(slot{e: Entry{Path: p, Mode: ModeFile, Content: content}, origin: origin})
	return nil
}

func (rd *renderer) addDir(p, origin string) error {
	if err := rd.checkPath(p, origin); err != nil {
		return err
	}
	if old := rd.slotAt(p); old != nil {
		if old.e.Mode == ModeDir {
			return nil
		}
		return fmt.Errorf("%s and %s both render %q", old.origin, origin, p)
	}
	rd.newSlot(slot{e: Entry{Path: p, Mode: ModeDir}, origin: origin})
	return nil
}

// markerRe finds text that the reconciler would take for a block marker.
// Compiled on first use (only bodies naming actctl need it), not at start-up.
var markerRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(<!--\s*(BEGIN|END) actctl\b)|(^#\s*(BEGIN|END) actctl\b)`)
})

func (rd *renderer) addBlock(p, style, body, origin string) error {
	if err := rd.checkPath(p, origin); err != nil {
		return err
	}
	// A marker inside the body would end the block early when the file is
	// read back, so the rest of our text would look like user content.
	if strings.Contains(body, "actctl") && markerRe().MatchString(body) {
		return fmt.Errorf("%s: the text for %q contains an actctl block marker (BEGIN/END actctl)", origin, p)
	}
	if old := rd.slotAt(p); old != nil {
		if old.e.Mode == ModeBlock && old.e.Style == style && string(old.e.Content) == body {
			return nil // the same file listed twice
		}
		return fmt.Errorf("%s and %s both render %q", old.origin, origin, p)
	}
	rd.newSlot(slot{e: Entry{Path: p, Mode: ModeBlock, Style: style, Content: []byte(body)}, origin: origin})
	return nil
}

func (rd *renderer) addKeys(p, format string, keys []Key, origin string) error {
	if err := rd.checkPath(p, origin); err != nil {
		return err
	}
	if format != schema.FormatJSON && format != schema.FormatTOML {
		return fmt.Errorf("%s: file %q: unknown format %q (want json or toml)", origin, p, format)
	}
	s := rd.slotAt(p)
	switch {
	case s == nil:
		s = rd.newSlot(slot{e: Entry{Path: p, Mode: ModeKeys, Format: format}, origin: origin, keys: map[string]string{}})
	case s.e.Mode != ModeKeys:
		return fmt.Errorf("%s and %s both render %q", s.origin, origin, p)
	case s.e.Format != format:
		return fmt.Errorf("%s declares %q as %s but %s declares it as %s", s.origin, p, s.e.Format, origin, format)
	}
	for _, k := range keys {
		if err := checkKeyPath(k.Path); err != nil {
			return fmt.Errorf("%s: %q: %w", origin, p, err)
		}
		j := strings.Join(k.Path, "\x00")
		for other, o := range s.keys {
			if other == j || strings.HasPrefix(other, j+"\x00") || strings.HasPrefix(j, other+"\x00") {
				return fmt.Errorf("%s and %s both set key %s in %q", o, origin, dotted(k.Path), p)
			}
		}
		s.keys[j] = origin
		s.e.Keys = append(s.e.Keys, k)
	}
	return nil
}

func checkKeyPath(p []string) error {
	if len(p) == 0 {
		return fmt.Errorf("empty key path")
	}
	for _, s := range p {
		if s == "" {
			return fmt.Errorf("key path %s has an empty segment", dotted(p))
		}
	}
	return nil
}

func dotted(p []string) string { return strings.Join(p, ".") }

// key builds a Key with v as canonical JSON: encoding/json output (map keys
// sorted), without HTML escaping so URLs keep their '&' readable in the
// user's file, and without the encoder's trailing newline.
func key(v any, path ...string) Key {
	return Key{Path: path, Value: canonicalJSON(v)}
}

func canonicalJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only maps, slices, strings and bools are encoded here.
		panic(fmt.Sprintf("materialize: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// --- instructions --------------------------------------------------------

// instructionBody is the agent's managed block: a heading with the agent
// name (unless the template's heading is false and the block has other
// text), the template description, then every prompt in template order.
// When the backend has no skills layout the skills are inlined too: a
// skill the tool never reads is as useless as an unread prompt.
func (rd *renderer) instructionBody(f schema.Files) string {
	r := rd.r
	parts := []string{"## " + r.Name, r.Template.Description}
	parts = append(parts, rd.prompts...)
	if h := r.Template.Heading; h != nil && !*h && joinParagraphs(parts[1:]...) != "" {
		parts = parts[1:]
	}
	if f.Skills == nil {
		for _, ref := range r.Template.Skills {
			s := rd.cfg.Skills[ref]
			body := rd.skillBody(ref, s)
			parts = append(parts, "### Skill: "+diskName(ref), s.Description, body)
		}
	}
	return joinParagraphs(parts...)
}

func (rd *renderer) instructions(f schema.Files) error {
	r := rd.r
	if len(f.Instructions) == 0 {
		if len(rd.prompts) > 0 {
			rd.warn("backend %q has no instruction file: the prompts of template %q are not given to the tool", r.BackendName, r.TemplateName)
		}
		if f.Skills == nil && len(r.Template.Skills) > 0 {
			rd.warn("backend %q has neither a skills layout nor an instruction file: skills are not rendered", r.BackendName)
		}
		return nil
	}
	if f.Skills == nil {
		for _, ref := range r.Template.Skills {
			s, ok := rd.cfg.Skills[ref]
			if !ok {
				return fmt.Errorf("skill %q is not declared", ref)
			}
			if len(s.Files) > 0 {
				rd.warn("skill %q: backend %q has no skills layout, so the skill is inlined into the instructions and its %d extra file(s) are not rendered", ref, r.BackendName, len(s.Files))
			}
		}
	}
	body := rd.instructionBody(f)
	for _, p := range f.Instructions {
		m, err := rd.mentions(f, p)
		if err != nil {
			return err
		}
		if m != "" {
			m = joinParagraphs(body, m)
		} else {
			m = body
		}
		if err := rd.addBlock(p, StyleHTML, rd.imports(f, p)+m, "instructions"); err != nil {
			return err
		}
		if src := rd.promptSource(); src != "" && normalizedEqual(rd.imports(f, p)+m, rd.prompts[0]) {
			rd.slots[rd.byPath[p]].e.Source = src
		}
	}
	return nil
}

// mentions is the paragraph the block in instruction file p gets for a
// rules layout with a mention (files.rules.mention): one line per skill
// written as a rule, naming it relative to p ("@.amp/rules/go-style.md").
func (rd *renderer) mentions(f schema.Files, p string) (string, error) {
	if f.Rules == nil || f.Rules.Mention == "" || f.Skills == nil {
		return "", nil
	}
	var lines []string
	for _, ref := range rd.r.Template.Skills {
		if len(rd.cfg.Skills[ref].Paths) == 0 {
			continue
		}
		rp, err := rulePath(f.Rules, diskName(ref))
		if err != nil {
			return "", fmt.Errorf("backend %q: %w", rd.r.BackendName, err)
		}
		lines = append(lines, strings.ReplaceAll(f.Rules.Mention, "{path}", relFrom(path.Dir(p), rp)))
	}
	return strings.Join(lines, "\n"), nil
}

// imports is the start of the block in instruction file p: one import
// line (then a blank line) for each file the backend's instructions
// shadow that holds the user's text, when p holds none of its own
// (docs/formats.md, "claude-code"): creating p must not hide them. A
// backend with no import (Zed: docs/formats.md, "zed") gets a warning
// naming the hidden files instead.
func (rd *renderer) imports(f schema.Files, p string) string {
	sh, userText := f.Shadows, rd.o.UserText
	if sh == nil || userText == nil {
		return ""
	}
	var b strings.Builder
	var hidden []string
	for _, s := range sh.Files {
		if s == p || !userText(rd.abs(s)) {
			continue
		}
		hidden = append(hidden, s)
		rel := relFrom(path.Dir(p), s)
		b.WriteString(strings.ReplaceAll(sh.Import, "{path}", rel) + "\n\n")
	}
	// The instruction file is read only when there is something to
	// import: most workspaces have no AGENTS.md of the user's.
	if len(hidden) == 0 || userText(rd.abs(p)) {
		return ""
	}
	if sh.Import == "" {
		rd.warn("backend %q reads only one instruction file, %s first: once it exists, %s (your text) is no longer read by it; to keep that file's text, set backends: %q: files: instructions: [%q]", rd.r.BackendName, p, strings.Join(hidden, ", "), rd.r.BackendName, hidden[0])
		return ""
	}
	return b.String()
}

// abs is the absolute path of rel in the agent's workspace.
func (rd *renderer) abs(rel string) string {
	return filepath.Join(rd.r.Dir, filepath.FromSlash(rel))
}

// relFrom is the slash path of target (relative to the workspace)
// relative to the directory dir (also relative to it).
func relFrom(dir, target string) string {
	if dir == "." {
		return target
	}
	ups := strings.Repeat("../", strings.Count(dir, "/")+1)
	return ups + target
}

// --- skills --------------------------------------------------------------

const maxSkillDescription = 1024

// skillBody is the skill text with vars filled. The loader and the hub
// have already taken the frontmatter out of Content (into Skill.Meta).
func (rd *renderer) skillBody(ref string, s schema.Skill) string {
	return rd.fill(fmt.Sprintf("skill %q", ref), s.Content, rd.r.Vars)
}

func (rd *renderer) skills(f schema.Files) error {
	r := rd.r
	if f.Skills == nil {
		return nil // inlined by instructions, or warned about there
	}
	switch f.Skills.Format {
	case schema.FormatSkillDir, schema.FormatCursorMDC, schema.FormatMarkdown:
	default:
		return fmt.Errorf("backend %q: unknown skills format %q (want skill, mdc or markdown)", r.BackendName, f.Skills.Format)
	}
	if f.Skills.Format == schema.FormatSkillDir && f.Skills.Ext != "" {
		return fmt.Errorf("backend %q: skills format skill writes <dir>/<name>/SKILL.md: ext %q does not apply", r.BackendName, f.Skills.Ext)
	}
	for _, ref := range r.Template.Skills {
		s, ok := rd.cfg.Skills[ref]
		if !ok {
			return fmt.Errorf("skill %q is not declared", ref)
		}
		name := diskName(ref)
		origin := "skill " + strconv.Quote(ref)
		if len(s.Paths) > 0 {
			if f.Rules != nil {
				if err := rd.rule(f.Rules, ref, &s); err != nil {
					return err
				}
				continue
			}
			if f.Skills.Format != schema.FormatCursorMDC {
				rd.warn("skill %q: paths %s are not written: backend %q has no path-scoped rules (files.rules); it is a skill the agent loads when it sees fit", ref, strings.Join(s.Paths, ", "), r.BackendName)
			}
		}
		in := rd.sh.skill(ref, &s)
		desc := skillDescription(name, &s)
		var p string
		switch f.Skills.Format {
		case schema.FormatSkillDir:
			if !validSkillName(name) {
				rd.warn("skill %q: name %q does not follow the Agent Skills rule (1-64 lowercase letters, digits and single hyphens); some tools will skip or rename it", ref, name)
			}
			if len(desc) > maxSkillDescription {
				rd.warn("skill %q: description is %d characters; Agent Skills allow at most %d", ref, len(desc), maxSkillDescription)
			}
			p = joinRel(f.Skills.Dir, name) + "/SKILL.md"
		case schema.FormatCursorMDC:
			p = joinRel(f.Skills.Dir, name+extOr(f.Skills, ".mdc"))
		case schema.FormatMarkdown:
			p = joinRel(f.Skills.Dir, name+extOr(f.Skills, ".md"))
		}
		out := rd.sh.file(f.Skills.Format, ref, in, r.Vars, func() rendered {
			return renderSkill(f.Skills.Format, name, desc, &s, r.Vars)
		})
		for _, m := range out.missing {
			rd.warn("%s: variable {{%s}} is not set; the placeholder is left as is", origin, m)
		}
		if err := rd.addFile(p, out.content, origin); err != nil {
			return err
		}
		if f.Skills.Format == schema.FormatSkillDir {
			rd.slotAt(p).e.skill = joinRel(f.Skills.Dir, name)
		}
		if len(in.rels) == 0 {
			continue
		}
		if f.Skills.Format != schema.FormatSkillDir {
			rd.warn("skill %q: format %s has no place for the skill's %d extra file(s); they are not rendered (format \"skill\" keeps them)", ref, f.Skills.Format, len(in.rels))
			continue
		}
		if in.relErr != nil {
			return fmt.Errorf("%s: refusing file %q: %w", origin, in.badRel, in.relErr)
		}
		base := joinRel(f.Skills.Dir, name) + "/"
		for _, rel := range in.rels {
			if err := rd.addFile(base+rel, s.Files[rel], origin); err != nil {
				return err
			}
			e := &rd.slotAt(base + rel).e
			e.Exec = s.Executable[rel] // skill files keep their mode
			e.skill = joinRel(f.Skills.Dir, name)
		}
	}
	return nil
}

// skillDescription is the skill's description, or, since Agent Skills and
// Cursor rules need one to be picked up on demand, its first line of text.
func skillDescription(name string, s *schema.Skill) string {
	if strings.TrimSpace(s.Description) != "" {
		return s.Description
	}
	if d := firstLine(s.Content); d != "" {
		return d
	}
	return name
}

// renderSkill renders one skill file in the given layout format. An Agent
// Skills SKILL.md keeps every frontmatter field of the source (license,
// allowed-tools, metadata, ...) in the source's order; name is the
// skill's directory name and description the config's (docs/formats.md);
// a source that already says both is kept byte for byte.
func renderSkill(format, name, desc string, s *schema.Skill, vars map[string]string) rendered {
	body, missing := fillVars(s.Content, vars)
	var out []byte
	switch format {
	case schema.FormatSkillDir:
		// A SKILL.md whose frontmatter already names the skill and holds
		// its description, with no variable filled, is written as it is
		// (no blank line added after the frontmatter where it has none):
		// import takes such a file as it is (docs/import.md).
		set := []frontmatter.Field{{Key: "name", Value: name}, {Key: "description", Value: desc}}
		if raw, ok := s.Meta.Source(set, body); ok && body == s.Content {
			out = []byte(raw)
		} else {
			out = frontmatter.Render(s.Meta, set, body)
		}
	case schema.FormatCursorMDC:
		// Cursor rule types (cursor.com/docs/context/rules): alwaysApply
		// false plus a description is an "Agent Requested" rule, the same
		// on-demand loading a skill gets; with globs (the skill's paths)
		// an "Auto Attached" one. globs is written as Cursor itself
		// writes it: comma-separated, unquoted, empty when none.
		out = frontmatter.Lines([]frontmatter.Line{{Key: "description", Value: frontmatter.Scalar(desc)}, {Key: "globs", Value: strings.Join(s.Paths, ",")}, {Key: "alwaysApply", Value: "false"}}, body)
	case schema.FormatInstructions:
		// GitHub Copilot path-specific instructions (docs.github.com,
		// "Creating path-specific custom instructions"): applyTo holds
		// the globs, comma-separated.
		out = frontmatter.Lines([]frontmatter.Line{{Key: "description", Value: frontmatter.Scalar(desc)}, {Key: "applyTo", Value: strconv.Quote(strings.Join(s.Paths, ","))}}, body)
	case schema.FormatClaudeRules:
		out = listRule(nil, "paths", s.Paths, body)
	case schema.FormatPathsRules:
		// Cline's conditional rules and Qwen Code's rules (docs/formats.md,
		// "Path-scoped rules"): description, then paths.
		out = listRule([]frontmatter.Line{{Key: "description", Value: frontmatter.Scalar(desc)}}, "paths", s.Paths, body)
	case schema.FormatSteering:
		// Kiro steering: included when a file matching fileMatchPattern
		// is in the context.
		out = listRule([]frontmatter.Line{{Key: "inclusion", Value: "fileMatch"}}, "fileMatchPattern", s.Paths, body)
	case schema.FormatGlobsRules:
		// Amp: a file AGENTS.md mentions, read when a file matching globs
		// is (the instruction block mentions it: rd.mentions).
		out = listRule(nil, "globs", s.Paths, body)
	case schema.FormatGlobTrigger:
		// Devin (Windsurf) rules: trigger glob, globs comma-separated.
		out = frontmatter.Lines([]frontmatter.Line{{Key: "trigger", Value: "glob"}, {Key: "globs", Value: strconv.Quote(strings.Join(s.Paths, ","))}, {Key: "description", Value: frontmatter.Scalar(desc)}}, body)
	default:
		out = []byte(ensureNL(body))
	}
	return rendered{content: out, missing: missing}
}

// listRule renders a rule whose frontmatter is head, then key holding a
// YAML list of the globs (docs/formats.md, "Path-scoped rules"), each
// double-quoted as Claude Code's docs write them (a glob may start with
// "*", which YAML reads as an alias when unquoted): Claude Code's rules
// (paths alone), Cline's and Qwen Code's, Kiro's steering.
func listRule(head []frontmatter.Line, key string, paths []string, body string) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	for _, l := range head {
		b.WriteString(l.Key + ": " + l.Value + "\n")
	}
	b.WriteString(key + ":\n")
	for _, p := range paths {
		b.WriteString("  - " + strconv.Quote(p) + "\n")
	}
	b.WriteString("---\n")
	if body != "" {
		b.WriteString("\n" + ensureNL(body))
	}
	return []byte(b.String())
}

// rule writes skill ref, which has paths, as a path-scoped rule in the
// layout l (files.rules): Copilot's <dir>/<name>.instructions.md, a
// Cursor <dir>/<name>.mdc, or a <dir>/<name>.md of Claude Code, Cline,
// Qwen Code, Kiro or Devin. A rule is one file: the skill's extra files
// are not written (warned).
func (rd *renderer) rule(l *schema.DirLayout, ref string, s *schema.Skill) error {
	r := rd.r
	name := diskName(ref)
	origin := "skill " + strconv.Quote(ref)
	p, err := rulePath(l, name)
	if err != nil {
		return fmt.Errorf("backend %q: %w", r.BackendName, err)
	}
	in := rd.sh.skill(ref, s)
	if len(in.rels) > 0 {
		rd.warn("skill %q: a path-scoped rule is one file; the skill's %d extra file(s) are not rendered", ref, len(in.rels))
	}
	desc := skillDescription(name, s)
	out := rd.sh.file("rule-"+l.Format, ref, in, r.Vars, func() rendered {
		return renderSkill(l.Format, name, desc, s, r.Vars)
	})
	for _, m := range out.missing {
		rd.warn("%s: variable {{%s}} is not set; the placeholder is left as is", origin, m)
	}
	return rd.addFile(p, out.content, origin)
}

// rulePath is where the rule named name goes in layout l.
func rulePath(l *schema.DirLayout, name string) (string, error) {
	switch l.Format {
	case schema.FormatInstructions:
		return joinRel(l.Dir, name+extOr(l, ".instructions.md")), nil
	case schema.FormatCursorMDC:
		return joinRel(l.Dir, name+extOr(l, ".mdc")), nil
	case schema.FormatClaudeRules, schema.FormatPathsRules, schema.FormatSteering, schema.FormatGlobTrigger, schema.FormatGlobsRules:
		return joinRel(l.Dir, name+extOr(l, ".md")), nil
	}
	return "", fmt.Errorf("unknown rules format %q (want instructions, mdc, claude-rules, paths, steering, glob-trigger or globs)", l.Format)
}

// validSkillName is the Agent Skills name rule (agentskills.io/specification):
// 1-64 lowercase letters, digits and single hyphens, no leading or trailing
// hyphen. Claude Code sub-agent names follow the same convention.
func validSkillName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
			return false
		}
	}
	return true
}

func ensureNL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// --- prompt files ----------------------------------------------------------

// promptFiles writes one file per prompt for tools with prompt templates
// (pi's .pi/prompts/<name>.md become /name commands). The prompts are in
// the instruction block as well; these files only add the commands.
func (rd *renderer) promptFiles(f schema.Files) error {
	r := rd.r
	if f.Prompts == nil {
		return nil
	}
	if f.Prompts.Format != schema.FormatMarkdown {
		return fmt.Errorf("backend %q: unknown prompts format %q (want markdown)", r.BackendName, f.Prompts.Format)
	}
	for i, ref := range r.Template.Prompts {
		p := rd.cfg.Prompts[ref]
		var content []byte
		if p.Description != "" {
			content = frontmatter.Lines([]frontmatter.Line{{Key: "description", Value: frontmatter.Scalar(p.Description)}}, rd.prompts[i])
		} else {
			content = []byte(ensureNL(rd.prompts[i]))
		}
		if err := rd.addFile(joinRel(f.Prompts.Dir, diskName(ref)+".md"), content, fmt.Sprintf("prompt %q", ref)); err != nil {
			return err
		}
	}
	return nil
}

// --- MCP -------------------------------------------------------------------

func (rd *renderer) mcp(f schema.Files) error {
	r := rd.r
	if len(r.Template.MCPServers) == 0 {
		return nil
	}
	if f.MCP == nil {
		rd.warn("backend %q has no MCP layout: MCP servers %s are not rendered", r.BackendName, strings.Join(r.Template.MCPServers, ", "))
		return nil
	}
	files := append([]schema.MCPFile{*f.MCP}, f.MCPFiles...)
	for i := range files {
		if err := rd.mcpFile(&files[i]); err != nil {
			return err
		}
	}
	return nil
}

// mcpFile writes the template's MCP servers into one MCP file of the
// backend (a warning the files share is given once: rd.warn).
func (rd *renderer) mcpFile(file *schema.MCPFile) error {
	r := rd.r
	if file.Key == "" {
		return fmt.Errorf("backend %q: mcp layout for %q has no key", r.BackendName, file.Path)
	}
	d, err := dialectFor(file)
	if err != nil {
		return fmt.Errorf("backend %q: %w", r.BackendName, err)
	}
	for _, ref := range r.Template.MCPServers {
		s, ok := rd.cfg.MCPServerFor(ref, r.Name)
		if !ok {
			return fmt.Errorf("mcp server %q is not declared", ref)
		}
		if why := refused(d, ref, s); why != "" {
			rd.warn("%s", why)
			continue
		}
		name, w := serverKey(d, ref)
		if w != "" {
			rd.warn("%s", w)
		}
		m := rd.sh.mcpServer(d, name, s)
		if m.err != nil {
			return m.err
		}
		for _, w := range m.warns {
			rd.warn("%s", w)
		}
		k := Key{Path: []string{file.Key, name}, Value: m.value}
		if err := rd.addKeys(file.Path, file.Format, []Key{k}, "mcp server "+strconv.Quote(ref)); err != nil {
			return err
		}
	}
	return nil
}

// --- permissions -----------------------------------------------------------

func (rd *renderer) permissions(f schema.Files) error {
	r := rd.r
	p := r.Permissions
	if p.Unset() {
		return nil // the user's own settings stay in charge
	}
	if f.Permissions == nil {
		what := p.Preset
		if what == "" {
			what = "rules"
		} else {
			what = "preset " + what
		}
		rd.warn("permissions (%s) cannot be expressed for backend %q: it has no permissions layout, so the tool's own defaults apply", what, r.BackendName)
		return nil
	}
	if err := checkPermFile(f.Permissions); err != nil {
		return fmt.Errorf("backend %q: %w", r.BackendName, err)
	}
	keys, warns, err := permissionKeys(r.Dir, r.Archetype.Workspace == schema.WorkspaceProject, f.Permissions.Dialect, p)
	if err != nil {
		return fmt.Errorf("backend %q: %w", r.BackendName, err)
	}
	for _, w := range warns {
		rd.warn("%s", w)
	}
	if f.Permissions.Dialect == schema.DialectCodex {
		if err := rd.codexRules(f.Permissions, p); err != nil {
			return err
		}
	}
	keys = rd.withDenyExtra(keys)
	if len(keys) == 0 {
		return nil // nothing to say in the file (Amp, VS Code without rules)
	}
	return rd.addKeys(f.Permissions.Path, f.Permissions.Format, keys, "permissions")
}

// --- workspace kinds ---------------------------------------------------------

// gitignore renders the project workspace's .gitignore block (README,
// "What apply writes"). The archetype's entries choose among the paths
// actctl writes in this workspace: its .actant/ directory (the runtime
// records and proxy logs of the agents working here, and at the workspace
// root the state, lock and backups too) and the agent's own files. Each is
// written anchored to the workspace (/.actant/), so it never hides a
// same-named path deeper in the user's tree; an entry naming anything else
// is left out with a warning, and so is a path git already tracks.
func (rd *renderer) gitignore() error {
	var lines []string
	for _, g := range rd.r.Archetype.Gitignore {
		if strings.ContainsAny(g, "\r\n") {
			return fmt.Errorf("archetype %q: gitignore entry %q spans lines", rd.r.ArchetypeName, g)
		}
		rel := strings.Trim(strings.TrimSpace(g), "/")
		if rel == "" {
			continue
		}
		rel = path.Clean(rel)
		isDir, ok := rd.written(rel)
		if !ok {
			rd.warn("archetype %q: gitignore entry %q is not a path actctl writes in a project workspace; it is left out of .gitignore", rd.r.ArchetypeName, g)
			continue
		}
		if rd.o.IsTracked != nil && rd.o.IsTracked(rel) {
			continue
		}
		line := "/" + gitignoreEscape(rel)
		if isDir {
			line += "/"
		}
		if !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	if err := rd.addBlock(GitignorePath, StyleHash, strings.Join(lines, "\n")+"\n", "gitignore"); err != nil {
		return err
	}
	rd.slots[rd.byPath[GitignorePath]].e.Shared = true
	return nil
}

// written reports whether actctl writes rel in a project workspace (an
// entry's path, a directory holding one, or .actant), and whether it is a
// directory. It looks at the few archetype entries only, instead of
// mapping the hundreds of paths a workspace with many skills writes.
func (rd *renderer) written(rel string) (isDir, ok bool) {
	if rel == MetaDir {
		isDir, ok = true, true
	}
	for i := range rd.slots {
		e := &rd.slots[i].e
		switch {
		case e.Path == rel:
			isDir, ok = e.Mode == ModeDir, true
		case len(e.Path) > len(rel) && e.Path[len(rel)] == '/' && strings.HasPrefix(e.Path, rel):
			// rel is a directory holding the entry (its path is clean).
			isDir, ok = true, true
		}
	}
	return isDir, ok
}

// gitignoreEscape quotes the characters gitignore reads as a pattern, so
// a path matches only itself.
func gitignoreEscape(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*' || c == '?' || c == '[' || c == '\\' || (c == ' ' && i == len(p)-1):
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// instance renders the Actant-compatible files of an instance workspace.
//
// .actant.json holds only the static keys derived from the config. The
// runtime keys (processOwnership, status, pid, pidStart, createdAt, updatedAt) are
// written by the proxy and attach/detach while the agent runs; they are
// not desired state, so rendering them would make every apply fight the
// running process.
func (rd *renderer) instance() error {
	r := rd.r
	policy := r.Template.WorkspacePolicy
	if policy == "" {
		policy = defaultWorkspacePolicy
	}
	keys := []Key{
		key(r.Name, "name"),
		key(r.TemplateName, "templateName"),
		key(r.Template.Version, "templateVersion"),
		key(r.BackendName, "backendType"),
		key(r.ArchetypeName, "archetype"),
		key(r.LaunchMode, "launchMode"),
		key(policy, "workspacePolicy"),
	}
	if err := rd.addKeys(ActantJSONPath, schema.FormatJSON, keys, "instance metadata"); err != nil {
		return err
	}
	if r.Archetype.Materialize != schema.MaterializeFull {
		return nil
	}
	// prompts/system.md is Actant's layout; no backend reads it, which is
	// why the prompts are also in the backend's instruction file.
	if err := rd.addFile(SystemPromptPath, []byte(joinParagraphs(rd.prompts...)), "system prompt"); err != nil {
		return err
	}
	return rd.addDir(LogsDir, "logs")
}

// promptSource is the config path of the template's one prompt when its
// text goes into the instructions unchanged (no {{variable}} in it), ""
// otherwise (Entry.Source).
func (rd *renderer) promptSource() string {
	t := rd.r.Template
	if len(t.Prompts) != 1 || len(rd.prompts) != 1 {
		return ""
	}
	p, ok := rd.cfg.Prompts[t.Prompts[0]]
	if !ok || p.Content != rd.prompts[0] || strings.Contains(p.Content, "{{") {
		return ""
	}
	return schema.Path("prompts", t.Prompts[0], "content")
}

// normalizedEqual reports whether two texts are equal once each ends in
// one newline (a block body always does).
func normalizedEqual(a, b string) bool {
	return strings.TrimRight(a, "\n") == strings.TrimRight(b, "\n")
}
