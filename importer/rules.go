package importer

import (
	"bytes"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/actctl/actctl/internal/frontmatter"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// scanRules takes each path-scoped rule of a's backend (Backend.Rules:
// Copilot's .github/instructions/<n>.instructions.md, Cursor's
// .cursor/rules/<n>.mdc, Claude Code's .claude/rules/<n>.md) that apply writes back byte for byte, as a skill
// with paths (docs/import.md).
func (p *Plan) scanRules(a *agent) error {
	if l := a.b.Rules; l != nil {
		p.scanFiles(a, l, "rule", ruleExt(l), p.rule)
	}
	return nil
}

// scanFiles offers take each file of a's layout l ending in ext as an
// item of kind; a directory, another kind of file and an unreadable
// directory are left, said why.
func (p *Plan) scanFiles(a *agent, l *schema.DirLayout, kind, ext string, take func(*agent, Item)) {
	for _, e := range p.readDir(a, kind, l.Dir) {
		name := strings.TrimSuffix(e.Name(), ext)
		it := Item{Backend: a.b.Name, Kind: kind, Name: name, Path: path.Join(l.Dir, e.Name())}
		switch {
		case e.IsDir():
			p.leave(it, "a directory of %ss; actctl writes one file per %s in %s", kind, kind, l.Dir)
		case !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ext) || name == "":
			p.leave(it, "not a %s %s file; left as it is", ext, kind)
		default:
			take(a, it)
		}
	}
}

// ruleExt is the ending of a rule file in layout l.
func ruleExt(l *schema.DirLayout) string {
	switch {
	case l.Ext != "":
		return l.Ext
	case l.Format == schema.FormatInstructions:
		return ".instructions.md"
	case l.Format == schema.FormatClaudeRules:
		return ".md"
	}
	return ".mdc"
}

// rule takes one rule file as a skill with paths, or says why not.
func (p *Plan) rule(a *agent, it Item) {
	if !nameRe.MatchString(it.Name) {
		p.leave(it, "the name is not a valid actctl name (%s)", nameRe)
		return
	}
	if other, ok := p.claimFor(a, it.Path); !ok {
		p.leave(it, "%s", sameAs(other))
		return
	}
	text, err := p.read(it.Path)
	switch {
	case err != nil:
		p.leave(it, "cannot read it (%v)", err)
		return
	case !utf8.Valid(text):
		p.leave(it, "%v", errNotUTF8)
		return
	}
	s, why := readRule(a.b.Rules.Format, string(text))
	if why != "" {
		p.leave(it, "%s", why)
		return
	}
	_, want, err := materialize.RuleFile(a.b.Rules, it.Name, &s)
	switch {
	case err != nil:
		p.leave(it, "%v", err)
		return
	case !bytes.Equal(want, text):
		p.leave(it, "not byte for byte what apply writes for it (its frontmatter, then the text, as apply spells them): %s", firstDiff(text, want))
		return
	}
	if prev, ok := p.skills[it.Name]; ok {
		p.leave(it, "a skill of the same name was taken from %s", prev.found)
		return
	}
	p.skills[it.Name] = &skillSrc{found: it.Path, rule: &s}
	a.skills = append(a.skills, it.Name)
	p.take(it)
}

// readRule reads a rule file back as a skill with paths; why says what
// else it holds. Cursor writes its globs unquoted (**/*.go is no YAML),
// so that line is read as text before the YAML is parsed.
func readRule(format, text string) (schema.Skill, string) {
	if format == schema.FormatClaudeRules {
		return readClaudeRule(text)
	}
	var s schema.Skill
	globsKey := "applyTo"
	allowed := []string{"description", "applyTo"}
	if format == schema.FormatCursorMDC {
		globsKey, allowed = "globs", []string{"description", "alwaysApply"}
		var globs string
		text, globs = cutGlobs(text)
		s.Paths = splitGlobs(globs)
	}
	meta, body, err := frontmatter.Split(text)
	if err != nil || meta == nil {
		return s, "no frontmatter with a description and " + globsKey
	}
	for _, k := range meta.Keys() {
		if !contains(allowed, k) {
			return s, "frontmatter holds " + k + ", which actctl does not write"
		}
	}
	if s.Description, _, err = meta.Text("description"); err != nil {
		return s, "frontmatter: " + err.Error()
	}
	if format == schema.FormatInstructions {
		v, _, err := meta.Text("applyTo")
		if err != nil {
			return s, "frontmatter: " + err.Error()
		}
		s.Paths = splitGlobs(v)
	}
	if len(s.Paths) == 0 {
		return s, "no " + globsKey + ": a rule for every file is an instruction, which import takes from the instruction file only"
	}
	s.Content = body
	return s, ""
}

// readClaudeRule reads a Claude Code rule (a paths list in the
// frontmatter) back as a skill with paths; why says what else it holds.
// Only the shape apply writes is read (each glob double-quoted on its own
// line); the caller checks the bytes.
func readClaudeRule(text string) (schema.Skill, string) {
	var s schema.Skill
	meta, body, err := frontmatter.Split(text)
	if err != nil || meta == nil {
		return s, "no paths: a rule for every file is an instruction, which import takes from the instruction file only"
	}
	for _, k := range meta.Keys() {
		if k != "paths" {
			return s, "frontmatter holds " + k + ", which actctl does not write"
		}
	}
	rest, ok := strings.CutPrefix(text, "---\npaths:\n")
	for ok {
		var line string
		if line, rest, ok = strings.Cut(rest, "\n"); !ok || !strings.HasPrefix(line, "  - ") {
			break
		}
		g, err := strconv.Unquote(strings.TrimPrefix(line, "  - "))
		if err != nil {
			return s, "paths: not a list of double-quoted globs, as apply writes it"
		}
		s.Paths = append(s.Paths, g)
	}
	if len(s.Paths) == 0 {
		return s, "no paths: a rule for every file is an instruction, which import takes from the instruction file only"
	}
	s.Content = body
	return s, ""
}

// cutGlobs takes the "globs: ..." line out of a frontmatter and returns
// the text without it and its value.
func cutGlobs(text string) (string, string) {
	return cutKey(text, "globs:")
}

// splitGlobs splits a comma-separated list of globs.
func splitGlobs(v string) []string {
	var out []string
	for _, g := range strings.Split(v, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
