package main

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// shape is what docs/json.md says of a JSON value: an object's keys (each
// required unless written "key"?) with their shapes, a map of the user's
// names (NAME: ...) with its values' shape, or an array's element shape.
// A nil *shape is opaque: the doc names the value but not its content
// (the user's data, a scalar, or "[...]").
type shape struct {
	keys     map[string]*shape
	optional map[string]bool
	mapOf    *shape // {NAME: shape}
	elem     *shape // [shape]
	isArray  bool
}

// checkDocumented checks the JSON output v of command against the shape
// its row in docs/json.md gives: every key the output has is documented,
// and every documented key not marked optional ("key"?) is in the output,
// in every object the shape describes (the elements of a list included).
// A value the shape leaves opaque ("value", a map of names, "[...]") is
// not looked into.
func checkDocumented(t *testing.T, command string, v any) {
	t.Helper()
	text := docShape(t, command)
	sh, err := parseShape(text)
	if err != nil {
		t.Fatalf("docs/json.md's %s: %v: %s", command, err, text)
	}
	for _, e := range sh.check(v, command) {
		t.Errorf("%s (docs/json.md: %s)", e, text)
	}
}

// docShape returns the shape docs/json.md gives command: the first code
// span that is JSON in the row whose first cell names the command.
func docShape(t *testing.T, command string) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	span := regexp.MustCompile("`([[{][^`]*)`")
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.SplitN(line, " | ", 2)
		if len(cells) < 2 || !slices.Contains(strings.Split(strings.TrimPrefix(cells[0], "| "), ", "), "`"+command+"`") {
			continue
		}
		if m := span.FindStringSubmatch(cells[1]); m != nil {
			return m[1]
		}
	}
	t.Fatalf("docs/json.md has no row for %s", command)
	return ""
}

// check returns what in v disagrees with s, each naming its path.
func (s *shape) check(v any, path string) []string {
	if s == nil {
		return nil
	}
	var errs []string
	switch x := v.(type) {
	case []any:
		if !s.isArray {
			return []string{path + " is a list"}
		}
		for i, e := range x {
			errs = append(errs, s.elem.check(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case map[string]any:
		if s.mapOf != nil {
			for k, e := range x {
				errs = append(errs, s.mapOf.check(e, path+"."+k)...)
			}
			return errs
		}
		if s.keys == nil {
			return []string{path + " is an object"}
		}
		for _, k := range sortedKeys(x) {
			sub, ok := s.keys[k]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: key %q is not documented", path, k))
				continue
			}
			errs = append(errs, sub.check(x[k], path+"."+k)...)
		}
		for _, k := range slices.Sorted(maps.Keys(s.keys)) {
			if _, ok := x[k]; !ok && !s.optional[k] {
				errs = append(errs, fmt.Sprintf("%s: documented key %q is missing", path, k))
			}
		}
	}
	return errs
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// shapeParser reads docs/json.md's shape notation: JSON with bare keys
// ("name"), optional keys ("name"?), maps (NAME: ...), "[...]" and
// alternatives ("a"\|"b"), scalars written as words (bool, N).
type shapeParser struct {
	s   string
	pos int
}

func parseShape(s string) (*shape, error) {
	p := &shapeParser{s: s}
	sh, err := p.value()
	if err != nil {
		return nil, err
	}
	return sh, nil
}

func (p *shapeParser) skipSpace() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *shapeParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

// value parses one value; a scalar or "..." is opaque (nil).
func (p *shapeParser) value() (*shape, error) {
	switch p.peek() {
	case '{':
		return p.object()
	case '[':
		p.pos++
		sh := &shape{isArray: true}
		if strings.HasPrefix(p.s[p.pos:], "...]") {
			p.pos += 4
			return sh, nil
		}
		elem, err := p.value()
		if err != nil {
			return nil, err
		}
		sh.elem = elem
		return sh, p.expect(']')
	}
	p.scalar()
	return nil, nil
}

// scalar skips a scalar: up to the next ',', '}' or ']' outside quotes.
func (p *shapeParser) scalar() {
	quoted := false
	for ; p.pos < len(p.s); p.pos++ {
		c := p.s[p.pos]
		if c == '"' {
			quoted = !quoted
		}
		if !quoted && (c == ',' || c == '}' || c == ']') {
			return
		}
	}
}

func (p *shapeParser) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("want %q at %d", c, p.pos)
	}
	p.pos++
	return nil
}

// object parses {member, ...}: "key"?, "key"?: value, or NAME: value.
func (p *shapeParser) object() (*shape, error) {
	p.pos++
	sh := &shape{keys: map[string]*shape{}, optional: map[string]bool{}}
	for p.peek() != '}' {
		if err := p.member(sh); err != nil {
			return nil, err
		}
		if p.peek() == ',' {
			p.pos++
		}
	}
	p.pos++
	return sh, nil
}

func (p *shapeParser) member(sh *shape) error {
	if p.peek() != '"' {
		// NAME: a map of the user's names.
		start := p.pos
		for p.pos < len(p.s) && (unicode.IsUpper(rune(p.s[p.pos])) || p.s[p.pos] == '_') {
			p.pos++
		}
		if p.pos == start || p.expect(':') != nil {
			return fmt.Errorf("want a key at %d", start)
		}
		v, err := p.value()
		sh.mapOf = v
		if v == nil {
			sh.mapOf = &shape{} // opaque values
		}
		sh.keys = nil
		return err
	}
	end := strings.IndexByte(p.s[p.pos+1:], '"')
	if end < 0 {
		return fmt.Errorf("unclosed key at %d", p.pos)
	}
	name := p.s[p.pos+1 : p.pos+1+end]
	p.pos += end + 2
	if p.pos < len(p.s) && p.s[p.pos] == '?' {
		sh.optional[name] = true
		p.pos++
	}
	sh.keys[name] = nil
	if p.peek() == ':' {
		p.pos++
		v, err := p.value()
		if err != nil {
			return err
		}
		sh.keys[name] = v
	}
	return nil
}

// checkTable checks the JSON object v against the table of fields under
// the docs/json.md heading that starts with heading: every key of v is a
// field of the table, and every field of the table is in v unless listed
// in optional (fields present only when they apply, as the table says).
func checkTable(t *testing.T, heading string, v map[string]any, optional ...string) {
	t.Helper()
	doc, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## "+heading)
	if !ok {
		t.Fatalf("docs/json.md has no heading %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var fields []string
	for _, line := range strings.Split(section, "\n") {
		first, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		if !ok || !strings.HasPrefix(line, "| `") {
			continue
		}
		for _, f := range strings.Split(first, ", ") {
			fields = append(fields, strings.Trim(f, "`"))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if !slices.Contains(fields, k) {
			t.Errorf("%s: key %q is not in the table (%v)", heading, k, fields)
		}
	}
	for _, f := range fields {
		if _, ok := v[f]; !ok && !slices.Contains(optional, f) {
			t.Errorf("%s: field %q is not in the output %v", heading, f, v)
		}
	}
}
