package tomlkeys

import (
	"bytes"
	"fmt"

	"github.com/pelletier/go-toml/v2/unstable"
)

// exprKind is the kind of a top-level TOML expression.
type exprKind int

const (
	kindKV exprKind = iota
	kindTable
	kindArrayTable
	kindComment
)

// expr is one top-level expression with its exact byte positions, taken from
// go-toml's unstable parser (which reports raw ranges of keys and key/value
// pairs; the few offsets it does not report are found by scanning the
// characters the grammar allows around them).
type expr struct {
	kind exprKind
	// key is the decoded dotted key (kindKV) or table name (tables).
	key []string
	// start is the first byte; end is just after the value (kindKV), the
	// closing bracket(s) (tables), or the comment.
	start, end int
	// valueStart is the first byte of a key/value pair's value.
	valueStart int
	// lineStart and lineEnd span the whole lines the expression occupies,
	// lineEnd including the line ending (or at end of input).
	lineStart, lineEnd int
}

// section is the root table or one [table] / [[array table]] with the
// expressions that follow its header.
type section struct {
	header *expr // nil for the root section
	path   []string
	array  bool
	exprs  []expr // key/values and comments, in order
}

// kvs returns the key/value expressions of the section.
func (s *section) kvs() []expr {
	var out []expr
	for _, e := range s.exprs {
		if e.kind == kindKV {
			out = append(out, e)
		}
	}
	return out
}

// end is the offset just after the section's last key/value line, or after
// its header line if it has none (trailing comments and blank lines are left
// to whatever follows).
func (s *section) end() int {
	kv := s.kvs()
	if len(kv) > 0 {
		return kv[len(kv)-1].lineEnd
	}
	if s.header != nil {
		return s.header.lineEnd
	}
	return 0
}

// model is a parsed document: its sections in order.
type model struct {
	content  []byte
	sections []*section
}

func keyParts(n *unstable.Node) (parts []string, first, last unstable.Range) {
	it := n.Key()
	for it.Next() {
		k := it.Node()
		if len(parts) == 0 {
			first = k.Raw
		}
		last = k.Raw
		parts = append(parts, string(k.Data))
	}
	return parts, first, last
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// parseModel parses content into sections. It fails on any TOML syntax
// error, with the parser's line and column.
func parseModel(content []byte) (*model, error) {
	m := &model{content: content, sections: []*section{{}}}
	var p unstable.Parser
	p.KeepComments = true
	p.Reset(content)
	for p.NextExpression() {
		n := p.Expression()
		var e expr
		switch n.Kind {
		case unstable.Comment:
			e = expr{kind: kindComment, start: int(n.Raw.Offset), end: int(n.Raw.Offset + n.Raw.Length)}
		case unstable.KeyValue:
			parts, _, last := keyParts(n)
			e = expr{kind: kindKV, key: parts, start: int(n.Raw.Offset), end: int(n.Raw.Offset + n.Raw.Length)}
			i := skipBlank(content, int(last.Offset+last.Length))
			if i >= len(content) || content[i] != '=' {
				return nil, fmt.Errorf("offset %d: cannot locate '=' of key %v", i, parts)
			}
			e.valueStart = skipBlank(content, i+1)
		case unstable.Table, unstable.ArrayTable:
			parts, first, last := keyParts(n)
			e = expr{kind: kindTable, key: parts}
			brackets := 1
			if n.Kind == unstable.ArrayTable {
				e.kind = kindArrayTable
				brackets = 2
			}
			s := int(first.Offset)
			for s > 0 && (content[s-1] == ' ' || content[s-1] == '\t') {
				s--
			}
			s -= brackets
			if s < 0 || content[s] != '[' {
				return nil, fmt.Errorf("offset %d: cannot locate '[' of table %v", s, parts)
			}
			e.start = s
			e.end = skipBlank(content, int(last.Offset+last.Length)) + brackets
		default:
			return nil, fmt.Errorf("unexpected top-level %s", n.Kind)
		}
		e.lineStart = bytes.LastIndexByte(content[:e.start], '\n') + 1
		e.lineEnd = len(content)
		if i := bytes.IndexByte(content[e.end:], '\n'); i >= 0 {
			e.lineEnd = e.end + i + 1
		}
		if e.kind == kindTable || e.kind == kindArrayTable {
			ec := e
			m.sections = append(m.sections, &section{header: &ec, path: e.key, array: e.kind == kindArrayTable})
			continue
		}
		cur := m.sections[len(m.sections)-1]
		cur.exprs = append(cur.exprs, e)
	}
	if err := p.Error(); err != nil {
		if perr, ok := err.(*unstable.ParserError); ok {
			sh := p.Shape(p.Range(perr.Highlight))
			return nil, fmt.Errorf("line %d, column %d: %s", sh.Start.Line, sh.Start.Column, perr.Message)
		}
		return nil, err
	}
	return m, nil
}

// headerSection returns the [table] section named exactly path.
func (m *model) headerSection(path []string) *section {
	for _, s := range m.sections[1:] {
		if !s.array && equal(s.path, path) {
			return s
		}
	}
	return nil
}

// kvDef is a key/value pair located in its section.
type kvDef struct {
	sec  *section
	kv   expr
	full []string // section path + dotted key
}

// kvsAll returns every key/value pair with its full key, in document order.
func (m *model) kvsAll() []kvDef {
	var out []kvDef
	for _, s := range m.sections {
		for _, e := range s.exprs {
			if e.kind == kindKV {
				full := append(append([]string{}, s.path...), e.key...)
				out = append(out, kvDef{sec: s, kv: e, full: full})
			}
		}
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hasPrefix reports whether p starts with prefix.
func hasPrefix(p, prefix []string) bool {
	return len(p) >= len(prefix) && equal(p[:len(prefix)], prefix)
}
