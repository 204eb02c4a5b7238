// Package tomlkeys edits actctl-managed keys inside TOML files that users
// also edit (.codex/config.toml: [mcp_servers.<name>] tables and the
// sandbox_mode, approval_policy and sandbox_workspace_write.network_access
// keys; README, "What apply writes").
//
// Documents are parsed with go-toml's unstable parser, which reports the raw
// byte ranges of every top-level expression, so every edit is a splice of
// whole lines (or of one value) and the rest of the file — other keys, their
// order, comments, blank lines, quoting style — stays byte-identical.
//
// Values come in as JSON (like jsonkeys) and are written as TOML:
//
//   - a JSON object becomes a "[a.b.name]" table section appended at the end
//     of the file, one "key = value" line per member; objects nested inside
//     it are written as inline tables ("env = { KEY = "v" }", the form the
//     Codex documentation uses), so the whole managed value is one
//     contiguous section that Delete can remove in one piece;
//   - scalars and arrays become one "key = value" line: at the end of the
//     key/values of their table's section (top-level keys go before the
//     first table header), or in a new "[table]" section at the end of the
//     file when the table does not exist yet.
//
// JSON null has no TOML form and is rejected. Set returns a Receipt; with it
// Delete(Set(c, p, v), p, receipt) == c byte for byte for a document c
// lacking the key, and when Set replaced a value Delete restores its exact
// old text.
package tomlkeys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/pelletier/go-toml/v2"
)

// Receipt records how Set changed a document so Delete can undo exactly that
// change. It marshals to JSON for the state file (text is kept in Go
// strings so it round-trips exactly). When Set later replaces a value actctl
// itself inserted, keep the first Receipt.
type Receipt struct {
	// Replaced reports that the key existed and Set replaced its
	// definition; Old is the exact text replaced (a value, or a whole
	// [table] section), which Delete puts back.
	Replaced bool   `json:"replaced,omitempty"`
	Old      string `json:"old,omitempty"`
	// Sep is the separator Set inserted before a section it appended at the
	// end of the file ("" for an empty file, one line ending after a final
	// newline — leaving a blank line — or two when the file had none).
	Sep string `json:"sep,omitempty"`
	// Section reports that Set created the "[table]" header of the key's
	// table; Delete removes the header too when the key was its only
	// content.
	Section bool `json:"section,omitempty"`
}

func eol(content []byte) string {
	if i := bytes.IndexByte(content, '\n'); i > 0 && content[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func checkPath(path []string) error {
	if len(path) == 0 {
		return errors.New("empty key path")
	}
	for _, k := range path {
		if !utf8.ValidString(k) {
			return fmt.Errorf("key %q is not valid UTF-8", k)
		}
	}
	return nil
}

func decodeDoc(content []byte) (map[string]any, error) {
	doc := map[string]any{}
	if err := toml.Unmarshal(content, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// lookup walks path through nested tables. A path through a value that is
// not a table (including an array of tables) is an error naming it.
func lookup(doc map[string]any, path []string) (any, bool, error) {
	cur := doc
	for j, k := range path {
		v, ok := cur[k]
		if !ok {
			return nil, false, nil
		}
		if j == len(path)-1 {
			return v, true, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s is not a table", strings.Join(path[:j+1], "."))
		}
		cur = m
	}
	return nil, false, nil
}

// canonical converts a decoded TOML value to canonical JSON (see
// jsonkeys.Canonical). Dates and times become RFC 3339 strings; NaN and
// infinite floats have no JSON form and are an error.
func canonical(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("value has no JSON form: %w", err)
	}
	return jsonkeys.Canonical(b)
}

// Get returns the value at path as canonical JSON. ok is false if the key
// (or a parent table) is absent.
func Get(content []byte, path []string) (value json.RawMessage, ok bool, err error) {
	name := strings.Join(path, ".")
	if err := checkPath(path); err != nil {
		return nil, false, fmt.Errorf("get %s: %w", name, err)
	}
	doc, err := decodeDoc(content)
	if err != nil {
		return nil, false, fmt.Errorf("get %s: %w", name, err)
	}
	v, ok, err := lookup(doc, path)
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("get %s: %w", name, err)
		}
		return nil, false, err
	}
	value, err = canonical(v)
	if err != nil {
		return nil, false, fmt.Errorf("get %s: %w", name, err)
	}
	return value, true, nil
}

// IsEmpty reports whether content holds nothing but whitespace: a TOML file
// actctl created and that is now in this state can be deleted. A comment is
// the user's and makes the file non-empty.
func IsEmpty(content []byte) bool {
	return len(bytes.Trim(content, " \t\r\n")) == 0
}

func splice(content []byte, start, end int, ins []byte) []byte {
	out := make([]byte, 0, len(content)-(end-start)+len(ins))
	out = append(out, content[:start]...)
	out = append(out, ins...)
	return append(out, content[end:]...)
}

// definition is where an existing key is defined: one key/value pair (its
// value spans [start, end)) or a run of sections (whole lines).
type definition struct {
	kv         *kvDef
	start, end int
}

// findDef locates the text defining path, if actctl knows how to edit it:
// a "key = value" pair whose full key is path, or a "[path]" section
// together with its sub-table sections when they directly follow it and
// nothing else in the file adds to the table. Anything else (a table built
// from dotted keys or only implied by sub-tables, a key inside an inline
// table or an array of tables, a table spread over the file) is an error:
// editing it could not be undone exactly.
func findDef(m *model, path []string) (definition, error) {
	name := strings.Join(path, ".")
	all := m.kvsAll()
	for i := range all {
		d := &all[i]
		if d.sec.array {
			continue
		}
		if equal(d.full, path) {
			return definition{kv: d, start: d.kv.valueStart, end: d.kv.end}, nil
		}
		if hasPrefix(path, d.full) {
			return definition{}, fmt.Errorf("%s is inside the inline value of %s; actctl does not edit inside inline tables", name, strings.Join(d.full, "."))
		}
	}
	idx := -1
	for i, s := range m.sections {
		if s.header != nil && !s.array && equal(s.path, path) {
			idx = i
			break
		}
	}
	if idx < 0 {
		return definition{}, fmt.Errorf("%s is not defined by a \"key = value\" line or a [%s] section (dotted keys, sub-tables or an array of tables); edit it by hand", name, name)
	}
	k := idx
	for k+1 < len(m.sections) && hasPrefix(m.sections[k+1].path, path) && m.sections[k+1].header != nil {
		k++
	}
	for i, s := range m.sections {
		if (i < idx || i > k) && i > 0 && hasPrefix(s.path, path) {
			return definition{}, fmt.Errorf("table %s is continued elsewhere in the file (line of [%s]); edit it by hand", name, strings.Join(s.path, "."))
		}
	}
	for _, d := range all {
		if hasPrefix(d.full, path) {
			in := false
			for i := idx; i <= k; i++ {
				in = in || d.sec == m.sections[i]
			}
			if !in {
				return definition{}, fmt.Errorf("table %s is extended by dotted key %s elsewhere; edit it by hand", name, strings.Join(d.full, "."))
			}
		}
	}
	return definition{start: m.sections[idx].header.lineStart, end: m.sections[k].end()}, nil
}

// Set makes the value at path equal to value (JSON), as described in the
// package documentation. If the key exists, only its definition changes
// (Receipt.Replaced and Receipt.Old); an already equal value leaves content
// unchanged. A path through a non-table value is an error naming it. The
// result is checked before it is returned: it must parse, read back as
// value, and leave every other key unchanged.
func Set(content []byte, path []string, value json.RawMessage) (out []byte, r Receipt, err error) {
	name := strings.Join(path, ".")
	fail := func(err error) ([]byte, Receipt, error) {
		return nil, Receipt{}, fmt.Errorf("set %s: %w", name, err)
	}
	if err := checkPath(path); err != nil {
		return fail(err)
	}
	jv, err := decodeJSON(value)
	if err != nil {
		return fail(err)
	}
	want, err := jsonkeys.Canonical(value)
	if err != nil {
		return fail(err)
	}
	m, err := parseModel(content)
	if err != nil {
		return fail(err)
	}
	doc, err := decodeDoc(content)
	if err != nil {
		return fail(err)
	}
	cur, found, err := lookup(doc, path)
	if err != nil {
		return fail(err)
	}
	nl := eol(content)
	if found {
		def, err := findDef(m, path)
		if err != nil {
			return fail(err)
		}
		r = Receipt{Replaced: true, Old: string(content[def.start:def.end])}
		if c, err := canonical(cur); err == nil && bytes.Equal(c, want) {
			return content, r, nil
		}
		var text string
		if def.kv != nil {
			text, err = inline(jv)
		} else if jv.kind != 'o' {
			err = fmt.Errorf("[%s] is a table; actctl will not replace it with a non-table value", name)
		} else {
			text, err = sectionText(path, jv, nl)
		}
		if err != nil {
			return fail(err)
		}
		out = splice(content, def.start, def.end, []byte(text))
	} else {
		out, r, err = insert(content, m, path, jv, nl)
		if err != nil {
			return fail(err)
		}
	}
	if err := verifySet(doc, out, path, want); err != nil {
		return fail(err)
	}
	return out, r, nil
}

// verifySet checks that out parses, holds want at path, and otherwise
// decodes exactly like before.
func verifySet(before map[string]any, out []byte, path []string, want json.RawMessage) error {
	after, err := decodeDoc(out)
	if err != nil {
		return fmt.Errorf("internal error: edited document does not parse: %w", err)
	}
	got, ok, err := lookup(after, path)
	if err != nil || !ok {
		return fmt.Errorf("internal error: edited document lacks the key (%v)", err)
	}
	if c, err := canonical(got); err != nil || !bytes.Equal(c, want) {
		return fmt.Errorf("internal error: edited document reads back %s, want %s (%v)", c, want, err)
	}
	b, err1 := json.Marshal(before)
	a, err2 := json.Marshal(after)
	if err1 != nil || err2 != nil {
		return nil // NaN or the like elsewhere: nothing more to compare
	}
	var exp, act map[string]any
	if json.Unmarshal(b, &exp) != nil || json.Unmarshal(a, &act) != nil {
		return nil
	}
	var w any
	_ = json.Unmarshal(want, &w)
	cur := exp
	for _, k := range path[:len(path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = w
	ce, err1 := canonical(exp)
	ca, err2 := canonical(act)
	if err1 == nil && err2 == nil && !bytes.Equal(ce, ca) {
		return fmt.Errorf("internal error: edit would change other keys")
	}
	return nil
}

// insert adds a missing key (see the package documentation for where).
func insert(content []byte, m *model, path []string, jv jvalue, nl string) ([]byte, Receipt, error) {
	parent := path[:len(path)-1]
	for _, d := range m.kvsAll() {
		if !d.sec.array && hasPrefix(parent, d.full) {
			return nil, Receipt{}, fmt.Errorf("%s is an inline value; actctl does not edit inside inline tables", strings.Join(d.full, "."))
		}
	}
	if jv.kind == 'o' {
		text, err := sectionText(path, jv, nl)
		if err != nil {
			return nil, Receipt{}, err
		}
		out, sep := appendSection(content, text, nl)
		return out, Receipt{Sep: sep}, nil
	}
	val, err := inline(jv)
	if err != nil {
		return nil, Receipt{}, err
	}
	last := path[len(path)-1]
	if len(parent) == 0 {
		return insertLine(content, rootInsertPos(m), tomlKey(last)+" = "+val, nl), Receipt{}, nil
	}
	if s := m.headerSection(parent); s != nil {
		return insertLine(content, s.end(), tomlKey(last)+" = "+val, nl), Receipt{}, nil
	}
	for _, d := range m.kvsAll() {
		if !d.sec.array && len(d.sec.path) <= len(parent) && len(d.full) > len(parent) && hasPrefix(d.full, parent) {
			// The table is made of dotted keys in this section: add one more.
			rel := append(append([]string{}, parent[len(d.sec.path):]...), last)
			return insertLine(content, d.sec.end(), tomlKeyPath(rel)+" = "+val, nl), Receipt{}, nil
		}
	}
	text := "[" + tomlKeyPath(parent) + "]" + nl + tomlKey(last) + " = " + val + nl
	out, sep := appendSection(content, text, nl)
	return out, Receipt{Sep: sep, Section: true}, nil
}

// rootInsertPos is where a new top-level key goes: after the last top-level
// key/value, else before the first table header (and before the comment
// lines directly above it, which describe that table), else at the end.
func rootInsertPos(m *model) int {
	root := m.sections[0]
	if kv := root.kvs(); len(kv) > 0 {
		return kv[len(kv)-1].lineEnd
	}
	if len(m.sections) == 1 {
		return len(m.content)
	}
	pos := m.sections[1].header.lineStart
	for i := len(root.exprs) - 1; i >= 0 && root.exprs[i].lineEnd == pos; i-- {
		pos = root.exprs[i].lineStart
	}
	return pos
}

// insertLine inserts one line at pos (a line boundary). At the end of a
// file without a final newline the line goes after a new line ending
// instead, so the file keeps having no final newline and Delete's
// end-of-file rule restores it exactly.
func insertLine(content []byte, pos int, line, nl string) []byte {
	if pos == len(content) && len(content) > 0 && content[len(content)-1] != '\n' {
		return splice(content, pos, pos, []byte(nl+line))
	}
	return splice(content, pos, pos, []byte(line+nl))
}

// appendSection appends text after a separator leaving one blank line.
func appendSection(content []byte, text, nl string) ([]byte, string) {
	sep := ""
	switch {
	case len(content) == 0:
	case content[len(content)-1] == '\n':
		sep = nl
	default:
		sep = nl + nl
	}
	out := make([]byte, 0, len(content)+len(sep)+len(text))
	out = append(out, content...)
	out = append(out, sep...)
	return append(out, text...), sep
}

// stripSep reports whether sep, at the end of prefix, may be removed
// without taking a line ending the text before it needs (same rule as
// package block).
func stripSep(prefix []byte, sep string) bool {
	if sep == "" || !bytes.HasSuffix(prefix, []byte(sep)) {
		return false
	}
	rest := prefix[:len(prefix)-len(sep)]
	return len(rest) == 0 || strings.Count(sep, "\n") >= 2 || rest[len(rest)-1] == '\n'
}

// removeLines removes the whole lines [start, end), and sep before them if
// present. When the removed lines end the file without a final newline, the
// line ending before them goes too, so the file still has none.
func removeLines(content []byte, start, end int, sep string) []byte {
	prefix := content[:start]
	if stripSep(prefix, sep) {
		prefix = prefix[:len(prefix)-len(sep)]
	} else if end == len(content) && end > start && content[end-1] != '\n' && len(prefix) > 0 && prefix[len(prefix)-1] == '\n' {
		prefix = prefix[:len(prefix)-1]
		if len(prefix) > 0 && prefix[len(prefix)-1] == '\r' {
			prefix = prefix[:len(prefix)-1]
		}
	}
	out := make([]byte, 0, len(prefix)+len(content)-end)
	out = append(out, prefix...)
	return append(out, content[end:]...)
}

// Delete undoes Set. With a Receipt that says Replaced it puts the old text
// back in place of the current definition. Otherwise it removes the key's
// line (or its whole [path] section and the separator Set added before it)
// and, when Set created the key's table header and the key was the only
// thing in it, the header too. A missing key is not an error: content is
// returned unchanged so prune can be re-run.
func Delete(content []byte, path []string, r Receipt) ([]byte, error) {
	name := strings.Join(path, ".")
	fail := func(err error) ([]byte, error) {
		return nil, fmt.Errorf("delete %s: %w", name, err)
	}
	if err := checkPath(path); err != nil {
		return fail(err)
	}
	m, err := parseModel(content)
	if err != nil {
		return fail(err)
	}
	doc, err := decodeDoc(content)
	if err != nil {
		return fail(err)
	}
	_, found, err := lookup(doc, path)
	if err != nil {
		return fail(err)
	}
	if !found {
		return content, nil
	}
	def, err := findDef(m, path)
	if err != nil {
		return fail(err)
	}
	var out []byte
	switch {
	case r.Replaced:
		out = splice(content, def.start, def.end, []byte(r.Old))
	case def.kv != nil:
		s := def.kv.sec
		start, end, sep := def.kv.kv.lineStart, def.kv.kv.lineEnd, ""
		if r.Section && s.header != nil && equal(s.path, path[:len(path)-1]) && len(s.exprs) == 1 {
			start, sep = s.header.lineStart, r.Sep
		}
		out = removeLines(content, start, end, sep)
	default:
		out = removeLines(content, def.start, def.end, r.Sep)
	}
	after, err := decodeDoc(out)
	if err != nil {
		return fail(fmt.Errorf("internal error: result does not parse: %w", err))
	}
	if !r.Replaced {
		if _, ok, _ := lookup(after, path); ok {
			return fail(errors.New("internal error: key still present after removal"))
		}
	}
	return out, nil
}

// Offset returns where the definition of path starts in content: its
// value, for a "key = value" line, or its "[table]" header: where a
// managed key stands in the document, by which reconcile orders the keys
// it takes out (Set appends what it inserts after every key it depends
// on). ok is false if path has no definition actctl can edit.
func Offset(content []byte, path []string) (off int, ok bool, err error) {
	if err := checkPath(path); err != nil {
		return 0, false, err
	}
	m, err := parseModel(content)
	if err != nil {
		return 0, false, fmt.Errorf("offset %s: %w", strings.Join(path, "."), err)
	}
	d, err := findDef(m, path)
	if err != nil {
		return 0, false, nil
	}
	return d.start, true, nil
}
