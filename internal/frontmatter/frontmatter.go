// Package frontmatter reads and writes the YAML frontmatter of Markdown
// files (Agent Skills' SKILL.md, Claude Code sub-agents, Cursor rules).
// It is the one frontmatter parser of actctl: the schema loader, the hub
// and the materializer all go through Split, so a field means the same
// thing wherever a skill comes from (docs/formats.md, "Shared formats").
//
// Parsing uses a real YAML parser (go.yaml.in/yaml/v3) and keeps the
// document as a node tree, so that rewriting a frontmatter keeps every
// field, in the source's order, with its comments and scalar styles.
package frontmatter

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Doc is a parsed frontmatter: a YAML mapping. The zero value and nil are
// an empty frontmatter. Its fields are exported only so that the hub's
// tree index can store a Doc like every other component field; use the
// methods.
type Doc struct {
	// Node is the DocumentNode holding one MappingNode; nil when empty.
	Node *yaml.Node
	// Head is the text from the opening fence to the closing one, for
	// the positions of Text's errors.
	Head string
	// Fence is the closing fence line and the blank lines after it, as
	// the source has them: Head + Fence + body is the text Split read
	// (see Source).
	Fence string
}

// Error is invalid frontmatter, positioned in the whole text.
type Error struct {
	Line, Col int // 1-based; Col 0 when unknown
	Offset    int // byte offset of Line:Col in the text
	Msg       string
}

func (e *Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("line %d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Split separates a leading frontmatter block ("---" line, YAML, "---"
// line) from the Markdown body. Without an opening fence the whole text is
// the body and doc is nil. Blank lines between the closing fence and the
// body are dropped. An opening fence that is never closed, YAML that does
// not parse, a frontmatter that is not a mapping and a key given twice are
// errors.
func Split(text string) (doc *Doc, body string, err error) {
	first, rest, ok := cutLine(text)
	if !ok || strings.TrimRight(first, "\r") != "---" {
		return nil, text, nil
	}
	start := len(text) - len(rest) // offset of the YAML
	end := -1
	for off := start; ; {
		line, after, more := cutLine(text[off:])
		if strings.TrimRight(line, "\r") == "---" {
			end = off
			body = strings.TrimLeft(after, "\r\n")
			break
		}
		if !more {
			return nil, text, errAt(text, 1, 1, "the frontmatter opened here is never closed by a --- line")
		}
		off = len(text) - len(after)
	}
	d, err := parse(text, text[start:end], text[:end])
	if err != nil {
		return nil, text, err
	}
	d.Fence = text[end : len(text)-len(body)]
	return d, body, nil
}

// Source is the text Split read d and body from, byte for byte (a blank
// line after the closing fence or none, CRLF line endings, the YAML as
// written), when d came from Split and every field of set is in it as
// that very string, so that Render would change no field; ok is false
// otherwise.
func (d *Doc) Source(set []Field, body string) (text string, ok bool) {
	m := d.mapping()
	if m == nil || d.Fence == "" {
		return "", false
	}
	for _, f := range set {
		i := indexOf(m, f.Key)
		if i < 0 {
			return "", false
		}
		if v := m.Content[i+1]; v.Kind != yaml.ScalarNode || v.Tag != "!!str" || v.Value != f.Value {
			return "", false
		}
	}
	return d.Head + d.Fence + body, true
}

// cutLine returns the first line of s (without "\n"), the rest after it,
// and whether a "\n" was found.
func cutLine(s string) (line, rest string, ok bool) {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// yamlErrLine matches the position yaml.v3 puts in its syntax errors.
// Compiled on first use, not at start-up (every actctl command links this
// package).
var yamlErrLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// parse decodes the YAML between the fences; the YAML's line 1 is line 2
// of the text, head is the text up to the closing fence.
func parse(text, yml, head string) (*Doc, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(yml), &n); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 1
		if m := yamlErrLine().FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		return nil, errAt(text, line+1, 0, "invalid YAML: "+msg)
	}
	if n.Kind == 0 { // only blank lines or comments
		return &Doc{Head: head}, nil
	}
	m := n.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, errAt(text, m.Line+1, m.Column, "the frontmatter must be a YAML mapping of fields (name: value)")
	}
	if budget := maxNodes; !within(m, &budget) {
		return nil, errAt(text, m.Line+1, m.Column, fmt.Sprintf("the frontmatter is too large: over %d YAML nodes with its aliases expanded", maxNodes))
	}
	seen := map[string]bool{}
	for i := 0; i < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, errAt(text, k.Line+1, k.Column, "a frontmatter field name must be a plain string")
		}
		if seen[k.Value] {
			return nil, errAt(text, k.Line+1, k.Column, fmt.Sprintf("field %q is given twice", k.Value))
		}
		seen[k.Value] = true
	}
	return &Doc{Node: &n, Head: head}, nil
}

// maxNodes bounds a frontmatter's size with aliases expanded: hub content
// is untrusted, and a few nested aliases can stand for billions of nodes
// once something walks through them (the hub's tree index stores the
// node tree). Real frontmatter has a few dozen.
const maxNodes = 10000

// within reports whether n, aliases followed, has at most *budget nodes.
func within(n *yaml.Node, budget *int) bool {
	if *budget--; *budget < 0 {
		return false
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return within(n.Alias, budget)
	}
	for _, c := range n.Content {
		if !within(c, budget) {
			return false
		}
	}
	return true
}

// errAt makes an Error at line:col of text, computing its byte offset.
func errAt(text string, line, col int, msg string) *Error {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	if col > 1 {
		off += col - 1
	}
	if off > len(text) {
		off = len(text)
	}
	return &Error{Line: line, Col: col, Offset: off, Msg: msg}
}

func (d *Doc) mapping() *yaml.Node {
	if d == nil || d.Node == nil {
		return nil
	}
	return d.Node.Content[0]
}

// Keys returns the field names in source order.
func (d *Doc) Keys() []string {
	m := d.mapping()
	if m == nil {
		return nil
	}
	keys := make([]string, 0, len(m.Content)/2)
	for i := 0; i < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i].Value)
	}
	return keys
}

// Text returns the string value of a scalar field. ok is false when the
// field is absent or null; a field holding a list or a mapping is an
// *Error positioned like Split's.
func (d *Doc) Text(key string) (val string, ok bool, err error) {
	m := d.mapping()
	if m == nil {
		return "", false, nil
	}
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		v := m.Content[i+1]
		for v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		switch {
		case v.Kind != yaml.ScalarNode:
			k := m.Content[i]
			return "", false, errAt(d.Head, k.Line+1, k.Column, fmt.Sprintf("field %q must be a string", key))
		case v.Tag == "!!null":
			return "", false, nil
		}
		return v.Value, true, nil
	}
	return "", false, nil
}

// Field is one field Render sets, overriding the source's value in place.
type Field struct {
	Key, Value string
}

// Render writes "---", the frontmatter, "---", a blank line and body
// (which always ends in a newline). Every field of d is kept in its
// order, comments and scalar styles included; each of set replaces the
// source's value where the source has that key, and is otherwise inserted
// after the previous field of set (the first at the top). Set values are
// written plain when unambiguous, else double-quoted (see Scalar). The
// output is deterministic, and rendering what Split reads back from it
// gives the same bytes.
func Render(d *Doc, set []Field, body string) []byte {
	if src := d.mapping(); src == nil || len(src.Content) == 0 {
		// Nothing to keep: write the fields directly (most skills have no
		// frontmatter of their own, and a 1000-agent apply renders 20k).
		lines := make([]Line, len(set))
		for i, f := range set {
			lines[i] = Line{Key: f.Key, Value: Scalar(f.Value)}
		}
		return Lines(lines, body)
	}
	m := &yaml.Node{Kind: yaml.MappingNode}
	root := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}}
	if src := d.mapping(); src != nil {
		cp := *d.Node
		root = &cp
		cpm := *src
		cpm.Content = append([]*yaml.Node(nil), src.Content...)
		m = &cpm
		root.Content = []*yaml.Node{m}
	}
	after := -1 // index in m.Content of the key after which to insert
	for _, f := range set {
		f.Value = strings.ToValidUTF8(f.Value, "\uFFFD")
		v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.Value}
		if !PlainSafe(f.Value) {
			v.Style = yaml.DoubleQuotedStyle
		}
		i := indexOf(m, f.Key)
		if i >= 0 {
			old := m.Content[i+1]
			if old.Kind == yaml.ScalarNode && old.Tag == "!!str" && old.Value == f.Value {
				v = old // unchanged: keep the source's style
			} else {
				v.LineComment = old.LineComment
			}
			m.Content[i+1] = v
			after = i
			continue
		}
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.Key}
		at := 0
		if after >= 0 {
			at = after + 2
		}
		m.Content = append(m.Content[:at], append([]*yaml.Node{k, v}, m.Content[at:]...)...)
		after = at
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		// Only nodes decoded by yaml.v3 and string scalars are encoded.
		panic(fmt.Sprintf("frontmatter: encode: %v", err))
	}
	_ = enc.Close()
	return closeWith(&b, body)
}

// Line is one "key: value" line of a frontmatter whose fields the caller
// writes all by itself; Value is already a YAML scalar (see Scalar), and
// an empty Value writes "key:" (YAML null, as Cursor writes an unset globs).
type Line struct {
	Key, Value string
}

// Lines writes "---", the lines, "---", a blank line and body (which
// always ends in a newline).
func Lines(lines []Line, body string) []byte {
	var b bytes.Buffer
	b.Grow(len(body) + 128)
	b.WriteString("---\n")
	for _, l := range lines {
		b.WriteString(l.Key)
		b.WriteByte(':')
		if l.Value != "" {
			b.WriteByte(' ')
			b.WriteString(l.Value)
		}
		b.WriteByte('\n')
	}
	return closeWith(&b, body)
}

// closeWith ends a frontmatter and appends the body after a blank line.
func closeWith(b *bytes.Buffer, body string) []byte {
	b.WriteString("---\n")
	if body != "" {
		b.WriteByte('\n')
		b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func indexOf(m *yaml.Node, key string) int {
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}
