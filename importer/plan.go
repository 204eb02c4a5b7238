package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// Options are import's choices.
type Options struct {
	// Backends limits import to these backends (Backends' names); empty
	// means every backend whose files are present.
	Backends []string
	// Move moves each skill directory into skills/<name> and lets apply
	// write the tool's copy; without it a skill is referenced where it
	// is, and taken only if apply would write it byte for byte.
	Move bool
}

// Item is one thing import found: taken into actant.cue, or left where it
// is, with the reason.
type Item struct {
	Backend string `json:"backend"`
	Kind    string `json:"kind"` // instructions, skill, mcp, permissions, settings, file
	Name    string `json:"name,omitempty"`
	Path    string `json:"path"`
	Reason  string `json:"reason,omitempty"`
}

// Edit replaces an instruction file's text by the same text inside the
// agent's block, exactly as apply writes it.
type Edit struct {
	Path     string `json:"path"`
	Agent    string `json:"agent"`
	Old, New []byte `json:"-"`
}

// Move is a skill directory moved into skills/ (Options.Move).
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Plan is what import would write, computed before anything is written.
type Plan struct {
	Root   string   `json:"root"`
	Agents []string `json:"agents"`
	Taken  []Item   `json:"taken"`
	Left   []Item   `json:"left"`
	Notes  []string `json:"notes"`
	Edits  []Edit   `json:"edits"`
	Moves  []Move   `json:"moves"`
	// Config is the actant.cue text.
	Config []byte `json:"-"`

	root     string
	opts     Options
	agents   []*agent
	skills   map[string]*skillSrc
	commands map[string]*commandSrc
	// subAgents are the sub-agent templates taken, by name.
	subAgents map[string]*subAgentSrc
	mcp       map[string]*mcpSrc
	claims    map[string]claim // real path -> who takes what is there
	// resolvedRoot is root with links resolved (realRoot).
	resolvedRoot string
}

// claim is an agent taking a path apply will write (or adopt) for it.
type claim struct{ agent, path string }

// agent is one imported backend's agent (and template, and prompt).
type agent struct {
	name   string
	b      Backend
	prompt string
	// noHeading: its block holds its text without the "## <agent>"
	// heading (the template's heading: false).
	noHeading bool
	also      []string // other agents' prompts it reads (Backend.Fallback)
	skills    []string
	commands  []string
	// subAgents are the sub-agent templates its template lists.
	subAgents []string
	mcp       []string
	perms     *schema.Permissions
	settings  map[string]any
}

var nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// ErrRecords is returned when the workspace has actctl's records of an
// earlier apply: its files were written from an actant.cue, and an import
// could not tell its own content from what those records claim.
var ErrRecords = errors.New("this repository has actctl's records of an earlier apply (actant.owned or .actant/state.json): its agent files were written from an actant.cue, so restore that one (git log -- actant.cue) instead of importing")

// ErrExists is returned when the workspace already has an actant.cue.
var ErrExists = errors.New("actant.cue already exists: import writes a new workspace config and never replaces one (remove or rename it to import again)")

// Scan reads the tool files under root and plans the import. It writes
// nothing.
func Scan(root string, o Options) (*Plan, error) {
	if err := checkFresh(root); err != nil {
		return nil, err
	}
	rows, err := selected(o.Backends)
	if err != nil {
		return nil, err
	}
	p := &Plan{Root: root, root: root, opts: o, skills: map[string]*skillSrc{}, commands: map[string]*commandSrc{}, subAgents: map[string]*subAgentSrc{}, mcp: map[string]*mcpSrc{}, claims: map[string]claim{},
		Agents: []string{}, Taken: []Item{}, Left: []Item{}, Notes: []string{}, Edits: []Edit{}, Moves: []Move{}}
	for _, b := range p.used(rows) {
		if err := p.scanBackend(b); err != nil {
			return nil, err
		}
	}
	p.fallbacks()
	if len(o.Backends) == 0 {
		p.notRead()
	}
	if err := p.anything(rows); err != nil {
		return nil, err
	}
	if err := p.checkMarkers(); err != nil {
		return nil, err
	}
	p.Config = p.render()
	return p, nil
}

// checkFresh refuses a root with an actant.cue or actctl's records.
func checkFresh(root string) error {
	if _, err := os.Lstat(filepath.Join(root, schema.FileName)); err == nil {
		return ErrExists
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("check %s: %w", schema.FileName, err)
	}
	for _, r := range []string{"actant.owned", ".actant/state.json"} {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(r))); err == nil {
			return ErrRecords
		}
	}
	// actctl loads every .cue file of the root with actant.cue: one left
	// there would change what the imported config means.
	if cues, _ := filepath.Glob(filepath.Join(root, "*.cue")); len(cues) > 0 {
		return fmt.Errorf("%s is a CUE file of this directory, which actctl would load with the imported actant.cue: move it away to import here", filepath.Base(cues[0]))
	}
	return nil
}

// Present are the agent files of root import looks for that are there
// (importer.Backends' paths, then NotRead's), each once: what `actctl init`
// names when it suggests import instead.
func Present(root string) []string {
	var out []string
	for _, rel := range lookedFor(Backends) {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			out = append(out, rel)
		}
	}
	for _, n := range NotRead {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(n.Path))); err == nil && !slices.Contains(out, n.Path) {
			out = append(out, n.Path)
		}
	}
	return out
}

// notRead lists the files of tools without a built-in backend as left.
func (p *Plan) notRead() {
	for _, n := range NotRead {
		if p.exists(n.Path) {
			p.leave(Item{Kind: "file", Path: n.Path}, "%s's file: actctl has no built-in backend for it yet; left as it is", n.Tool)
		}
	}
}

// anything refuses a plan without an agent, saying why.
func (p *Plan) anything(rows []Backend) error {
	switch {
	case len(p.agents) > 0:
		return nil
	case len(p.Left) > 0:
		var why []string
		for _, it := range p.Left {
			why = append(why, it.Path+": "+it.Reason)
		}
		return fmt.Errorf("nothing in %s can be imported as it is:\n  %s", p.root, strings.Join(why, "\n  "))
	}
	return fmt.Errorf("no agent files found in %s (looked for %s)", p.root, strings.Join(lookedFor(rows), ", "))
}

// selected returns the rows named (all when none is).
func selected(names []string) ([]Backend, error) {
	if len(names) == 0 {
		return Backends, nil
	}
	var rows []Backend
	for _, n := range names {
		b, ok := backendNamed(n)
		if !ok {
			var known []string
			for _, b := range Backends {
				known = append(known, b.Name)
			}
			return nil, fmt.Errorf("--backend %q: import knows %s", n, strings.Join(known, ", "))
		}
		if !slices.ContainsFunc(rows, func(r Backend) bool { return r.Name == n }) {
			rows = append(rows, b)
		}
	}
	return rows, nil
}

func lookedFor(rows []Backend) []string {
	var out []string
	for _, b := range rows {
		for _, p := range b.paths() {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// paths are every path of b whose presence means the tool is used, the
// instruction file first.
func (b Backend) paths() []string {
	ps := []string{b.Instructions}
	if b.Skills != "" {
		ps = append(ps, b.Skills)
	}
	if b.MCP != nil {
		ps = append(ps, b.MCP.Path)
	}
	if b.Commands != nil {
		ps = append(ps, b.Commands.Dir)
	}
	if b.Rules != nil {
		ps = append(ps, b.Rules.Dir)
	}
	if b.SubAgents != nil {
		ps = append(ps, b.SubAgents.Dir)
	}
	if b.Settings != "" {
		ps = append(ps, b.Settings)
	}
	return append(ps, b.Others...)
}

// used picks the backends to import: those whose own files are present,
// then, for an instruction file none of them reads, the first row that
// reads it. The first used backend reading an instruction file takes its
// text.
func (p *Plan) used(rows []Backend) []Backend {
	var out []Backend
	for _, b := range rows {
		if slices.ContainsFunc(b.paths()[1:], p.exists) {
			out = append(out, b)
		}
	}
	for _, b := range rows {
		if !p.exists(b.Instructions) || slices.ContainsFunc(out, func(u Backend) bool { return u.Instructions == b.Instructions }) {
			continue
		}
		out = append(out, b)
	}
	// Keep the table's order, which decides who takes a shared file.
	slices.SortStableFunc(out, func(a, b Backend) int { return rowIndex(a.Name) - rowIndex(b.Name) })
	return out
}

func rowIndex(name string) int {
	return slices.IndexFunc(Backends, func(b Backend) bool { return b.Name == name })
}

func (p *Plan) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(p.root, filepath.FromSlash(rel)))
	return err == nil
}

func (p *Plan) take(it Item) { p.Taken = append(p.Taken, it) }

func (p *Plan) leave(it Item, format string, args ...any) {
	it.Reason = fmt.Sprintf(format, args...)
	p.Left = append(p.Left, it)
}

// scanBackend imports one backend's files into one agent.
func (p *Plan) scanBackend(b Backend) error {
	as := p.instructions(b)
	if len(as) == 0 {
		return nil
	}
	for _, a := range as {
		p.agents = append(p.agents, a)
		p.Agents = append(p.Agents, a.name)
	}
	a := as[0] // the backend's own files are the first agent's
	if err := p.scanSkills(a); err != nil {
		return err
	}
	if err := p.scanCommands(a); err != nil {
		return err
	}
	if err := p.scanRules(a); err != nil {
		return err
	}
	if err := p.scanSubAgents(a); err != nil {
		return err
	}
	if err := p.scanMCP(a); err != nil {
		return err
	}
	if err := p.scanSettings(a); err != nil {
		return err
	}
	for _, o := range b.Others {
		if p.exists(o) {
			p.leave(Item{Backend: b.Name, Kind: "file", Path: o}, "import does not read it; left as it is, still yours")
		}
	}
	return nil
}

// unique returns name, or name-2, name-3, ... when an agent has it.
func (p *Plan) unique(name string) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(p.agents, func(a *agent) bool { return a.name == n })
	}
	n := name
	for i := 2; taken(n); i++ {
		n = fmt.Sprintf("%s-%d", name, i)
	}
	return n
}

// checkMarkers refuses an import whose apply would meet actctl block
// markers it has no record of (a copy from elsewhere) for an imported
// agent, in .gitignore or in an instruction file import does not take
// the blocks of: apply would call that block the user's and stop.
func (p *Plan) checkMarkers() error {
	for _, a := range p.agents {
		files := map[string]string{".gitignore": "# BEGIN actctl agent=" + a.name}
		if !p.adopted(a) {
			files[a.b.Instructions] = "<!-- BEGIN actctl agent=" + a.name + " -->"
		}
		for f, marker := range files {
			data, err := p.read(f)
			if err == nil && markerLine(string(data), marker) {
				return fmt.Errorf("%s holds a block of actctl markers for agent %s that no actant.cue wrote (a copy from elsewhere): apply would leave it to you and stop, so import writes nothing; remove or rename those markers, then import again", f, a.name)
			}
		}
	}
	return nil
}

// adopted reports whether a's block is taken from its instruction file.
func (p *Plan) adopted(a *agent) bool {
	return a.prompt != "" || slices.ContainsFunc(p.Edits, func(e Edit) bool { return e.Agent == a.name })
}

func markerLine(text, marker string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimRight(l, " \t\r") == marker {
			return true
		}
	}
	return false
}

// claimFor records that agent a takes rel (a file or directory apply
// writes for it). It refuses, returning the other path, when rel is the
// same file as one another agent takes through a link (.claude/skills
// linked to .agents/skills): two agents may not own one file.
func (p *Plan) claimFor(a *agent, rel string) (string, bool) {
	real := p.realPath(rel)
	if c, ok := p.claims[real]; ok && c.agent != a.name {
		return c.path, false
	}
	p.claims[real] = claim{agent: a.name, path: rel}
	return "", true
}

// sameAs is the reason for leaving rel, the same file as other.
func sameAs(other string) string {
	return "the same file as " + other + " (through a link), which another agent takes; the tool reads it there"
}

// fallbacks gives an agent whose tool read another agent's instruction
// file, because its own was missing, that agent's prompt too: the file
// apply creates for it would otherwise hide that text from the tool.
func (p *Plan) fallbacks() {
	for _, a := range p.agents {
		if a.b.Fallback == "" || a.prompt != "" || p.exists(a.b.Instructions) {
			continue
		}
		for _, o := range p.agents {
			if o != a && o.prompt != "" && p.realPath(o.b.Instructions) == p.realPath(a.b.Fallback) {
				a.also = append(a.also, o.name)
				p.Notes = append(p.Notes, fmt.Sprintf("%s has no %s, so it read %s: agent %s gets %s's prompt too, since the %s apply creates would hide it", a.b.Name, a.b.Instructions, a.b.Fallback, a.name, o.name, a.b.Instructions))
			}
		}
	}
}
