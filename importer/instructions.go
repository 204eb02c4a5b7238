package importer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/actctl/actctl/internal/block"
)

// markerRe finds text the reconciler would take for a block marker (as
// materialize's check of a block's body does).
var markerRe = regexp.MustCompile(`(?m)(<!--\s*(BEGIN|END) actctl\b)|(^#\s*(BEGIN|END) actctl\b)`)

// errNotUTF8 refuses text a CUE string cannot hold byte for byte.
var errNotUTF8 = errors.New("is not UTF-8 text, which actant.cue cannot hold byte for byte")

// varRe finds a {{name}} placeholder apply would try to fill.
var varRe = regexp.MustCompile(`\{\{\s*[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}`)

// instructions returns the agents of backend b, the first of which takes
// b's own files. The first agent reading an instruction file takes its
// text: a file without actctl blocks becomes the prompt of an agent named
// after b, rewritten to hold the same text inside that agent's block, as
// apply writes it (an Edit); each block of a file that has them (an
// actctl workspace whose actant.cue is gone) becomes an agent of that
// name. None means b is not imported (reported).
func (p *Plan) instructions(b Backend) []*agent {
	f := b.Instructions
	name := p.unique(b.Name)
	own := []*agent{{name: name, b: b}}
	real := p.realPath(f)
	for _, o := range p.agents {
		if o.b.Instructions == f || p.realPath(o.b.Instructions) == real {
			return own // the text is o's (CLAUDE.md may be a link to AGENTS.md); apply adds this agent's block
		}
	}
	it := Item{Backend: b.Name, Kind: "instructions", Name: name, Path: f}
	old, err := p.read(f)
	switch {
	case os.IsNotExist(err):
		return own
	case errors.As(err, new(*linkError)):
		p.leave(it, "%v; backend %s not imported", err, b.Name)
		return nil
	case err != nil:
		p.leave(it, "cannot read it (%v); backend %s not imported", err, b.Name)
		return nil
	case markerRe.Match(old):
		return p.blocks(b, old)
	}
	out, prompt, err := wrap(name, old)
	if err != nil {
		p.leave(it, "%v; backend %s not imported", err, b.Name)
		return nil
	}
	if prompt == "" {
		return own
	}
	own[0].prompt, own[0].noHeading = prompt, true
	p.Edits = append(p.Edits, Edit{Path: f, Agent: name, Old: old, New: out})
	p.take(it)
	p.noteVars(f, prompt)
	return own
}

func (p *Plan) noteVars(f, prompt string) {
	if m := varRe.FindString(prompt); m != "" {
		p.Notes = append(p.Notes, fmt.Sprintf("%s holds %s, which apply reads as a variable: it is left as it is (apply warns that it is not set)", f, m))
	}
}

// beginRe finds the BEGIN marker lines of Markdown blocks.
var beginRe = regexp.MustCompile(`(?m)^<!-- BEGIN actctl agent=(\S+) -->\r?$`)

// blocks turns each actctl block of b's instruction file content into an
// agent of that name whose prompt is the block's text, when apply would
// write that block byte for byte; the text outside the blocks stays the
// user's. Nothing is taken from a file with a block apply would not
// write as it is.
func (p *Plan) blocks(b Backend, content []byte) []*agent {
	f := b.Instructions
	var out []*agent
	rest := content
	for _, m := range beginRe.FindAllSubmatch(content, -1) {
		name := string(m[1])
		it := Item{Backend: b.Name, Kind: "instructions", Name: name, Path: f}
		body, ok, err := block.Find(content, name, block.StyleHTML)
		head := "## " + name + "\n\n"
		headed := strings.HasPrefix(string(body), head)
		prompt := strings.TrimSuffix(strings.TrimPrefix(string(body), head), "\n")
		switch {
		case err != nil || !ok:
			p.leave(it, "a malformed actctl block (%v); backend %s not imported", err, b.Name)
			return nil
		case !nameRe.MatchString(name) || slices.ContainsFunc(p.agents, func(a *agent) bool { return a.name == name }):
			p.leave(it, "block %q: not a valid actctl name, or one already taken; backend %s not imported", name, b.Name)
			return nil
		case prompt != strings.Trim(prompt, "\r\n") || strings.TrimSpace(prompt) == "":
			p.leave(it, "block %q is not one apply writes (\"## %s\" and a blank line or not, then the text); backend %s not imported", name, name, b.Name)
			return nil
		}
		rest, err = block.Remove(rest, name, block.StyleHTML, nil)
		if err != nil {
			p.leave(it, "%v; backend %s not imported", err, b.Name)
			return nil
		}
		out = append(out, &agent{name: name, b: b, prompt: prompt, noHeading: !headed})
		p.take(it)
		p.noteVars(f, prompt)
	}
	if markerRe.Match(rest) {
		p.leave(Item{Backend: b.Name, Kind: "instructions", Path: f}, "holds actctl markers that are not a whole Markdown block; backend %s not imported", b.Name)
		return nil
	}
	if strings.TrimSpace(string(rest)) != "" {
		p.leave(Item{Backend: b.Name, Kind: "instructions", Path: f}, "the text outside actctl's blocks stays yours, as it is")
	}
	return out
}

// wrap returns content with its text inside name's block, whose body is
// what materialize renders for a prompt of that text in an agent named
// name with no description and heading: false: the text alone, so only
// the two marker lines are added. Leading and trailing line endings stay
// outside the block; every other byte is kept. prompt is the text (""
// when there is none: nothing to wrap).
func wrap(name string, content []byte) (out []byte, prompt string, err error) {
	if !utf8.Valid(content) {
		return nil, "", errNotUTF8
	}
	s := string(content)
	core := strings.Trim(s, "\r\n")
	if strings.TrimSpace(core) == "" {
		return nil, "", nil
	}
	nl := "\n"
	if crlf := strings.Count(s, "\r\n"); crlf > 0 {
		if strings.Count(s, "\n") != crlf {
			return nil, "", fmt.Errorf("mixes CRLF and LF line endings, which apply would make one")
		}
		nl = "\r\n"
	}
	begin, end, err := block.Markers(name, block.StyleHTML)
	if err != nil {
		return nil, "", err
	}
	i := strings.Index(s, core)
	prefix, rest := s[:i], s[i+len(core):]
	rest = strings.TrimPrefix(rest, nl)
	prompt = strings.ReplaceAll(core, "\r\n", "\n")
	body := prompt + "\n"
	var b bytes.Buffer
	b.WriteString(prefix)
	b.WriteString(begin + nl)
	b.WriteString(strings.ReplaceAll(body, "\n", nl))
	b.WriteString(end + nl)
	b.WriteString(rest)
	got, ok, err := block.Find(b.Bytes(), name, block.StyleHTML)
	if err != nil || !ok || string(got) != body {
		return nil, "", fmt.Errorf("cannot be put in a block unchanged")
	}
	return b.Bytes(), prompt, nil
}

// realPath is rel under the root with symlinks resolved, or rel itself
// when it does not resolve.
func (p *Plan) realPath(rel string) string {
	abs := filepath.Join(p.root, filepath.FromSlash(rel))
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}
