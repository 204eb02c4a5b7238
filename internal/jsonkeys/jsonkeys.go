// Package jsonkeys edits actctl-managed keys inside JSON files that users
// also edit (.mcp.json, .claude/settings.json, .cursor/mcp.json,
// .gemini/settings.json, Zed's settings.json; README, "What apply
// writes").
//
// Documents are parsed with github.com/tailscale/hujson, which accepts
// comments and trailing commas and reports exact byte offsets, so every edit
// is a splice: only the bytes of the managed value (or the inserted member)
// change, and everything else — other keys, their order, formatting and
// comments — stays byte-identical. The whole document is never reformatted.
//
// Set returns a Receipt describing exactly what it inserted; Delete, given
// that Receipt, removes exactly that again, so for a document c lacking the
// key, Delete(Set(c, p, v), p, receipt) == c byte for byte. When Set replaced
// an existing value, the Receipt holds the old value's exact text and Delete
// puts it back.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// Receipt records how Set changed a document, so that Delete can undo
// exactly that change. It is meant to be stored (it marshals to JSON; byte
// strings are kept as Go strings so no re-encoding can alter them) with the
// state of the managed key. When Set later replaces a value actctl itself
// inserted, keep the first Receipt: it is the one that knows how to restore
// the user's original document.
type Receipt struct {
	// Replaced reports that the key existed and Set replaced its value;
	// Old is the exact text of the previous value, which Delete restores.
	Replaced bool   `json:"replaced,omitempty"`
	Old      string `json:"old,omitempty"`
	// Created is how many parent objects Set created (the innermost ones on
	// the path); Delete removes them again if they are empty.
	Created int `json:"created,omitempty"`
	// Closing is the line ending and indentation Set added before the
	// closing brace of the object it inserted into, when that object was
	// empty and written on one line ("{}"); Delete removes it with the
	// member so the object becomes "{}" again.
	Closing string `json:"closing,omitempty"`
	// Doc is the original document when it was empty or whitespace only
	// (Set then started from "{}"); Delete returns it once the document is
	// an empty object again.
	Doc *string `json:"doc,omitempty"`
}

// layout is the formatting Set imitates for new text.
type layout struct {
	nl   string // line ending: "\n" or "\r\n"
	unit string // one indentation level
}

// detectLayout finds the file's line ending (that of its first line) and
// indentation unit (the leading whitespace of the first indented line that
// starts a member name: a tab, or a run of spaces). Defaults: "\n", two
// spaces.
func detectLayout(content []byte) layout {
	l := layout{nl: "\n", unit: "  "}
	if i := bytes.IndexByte(content, '\n'); i > 0 && content[i-1] == '\r' {
		l.nl = "\r\n"
	}
	for line := range bytes.Lines(content) {
		trimmed := bytes.TrimLeft(line, " \t")
		ws := line[:len(line)-len(trimmed)]
		if len(ws) == 0 || len(trimmed) == 0 || trimmed[0] != '"' {
			continue
		}
		if ws[0] == '\t' {
			l.unit = "\t"
		} else if n := len(ws) - len(bytes.TrimLeft(ws, " ")); n > 0 && n <= 8 {
			l.unit = strings.Repeat(" ", n)
		}
		break
	}
	return l
}

// lineIndent returns the leading spaces and tabs of the line containing off.
func lineIndent(content []byte, off int) string {
	start := bytes.LastIndexByte(content[:off], '\n') + 1
	end := start
	for end < len(content) && (content[end] == ' ' || content[end] == '\t') {
		end++
	}
	return string(content[start:end])
}

// startsLine reports whether only spaces and tabs precede off on its line.
func startsLine(content []byte, off int) bool {
	start := bytes.LastIndexByte(content[:off], '\n') + 1
	return len(bytes.Trim(content[start:off], " \t")) == 0
}

// isBlank reports whether content is empty or only JSON whitespace.
func isBlank(content []byte) bool {
	return len(bytes.Trim(content, " \t\r\n")) == 0
}

// parse parses content as HuJSON and checks the root is an object.
func parse(content []byte) (hujson.Value, error) {
	v, err := hujson.Parse(content)
	if err != nil {
		return v, err
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return v, errors.New("top-level value is not an object")
	}
	return v, nil
}

// step is one level of a resolved path: the object and, if found, the index
// of the member named by the path element.
type step struct {
	obj   *hujson.Value
	index int // -1 if absent
}

// walk resolves path through nested objects. It returns one step per path
// element it could reach; the walk stops early at the first missing key. A
// duplicated key or a path through a non-object is an error, since editing
// either would be a guess about which value the tool reads.
func walk(root *hujson.Value, path []string) ([]step, error) {
	var steps []step
	cur := root
	for j, key := range path {
		obj, ok := cur.Value.(*hujson.Object)
		if !ok {
			return steps, fmt.Errorf("%s is not an object", strings.Join(path[:j], "."))
		}
		idx := -1
		for i := range obj.Members {
			lit, ok := obj.Members[i].Name.Value.(hujson.Literal)
			if !ok || lit.String() != key {
				continue
			}
			if idx >= 0 {
				return steps, fmt.Errorf("duplicate key %q in %s", key, displayPath(path[:j]))
			}
			idx = i
		}
		steps = append(steps, step{obj: cur, index: idx})
		if idx < 0 {
			return steps, nil
		}
		cur = &obj.Members[idx].Value
	}
	return steps, nil
}

// displayPath names an object path for error messages ("the root" for none).
func displayPath(p []string) string {
	if len(p) == 0 {
		return "the root object"
	}
	return strings.Join(p, ".")
}

func members(v *hujson.Value) []hujson.ObjectMember {
	return v.Value.(*hujson.Object).Members
}

// Get returns the value at path in canonical form (see Canonical), so it can
// be compared with, or hashed like, the value actctl wrote. ok is false if
// the key (or a parent) is absent or the document is blank.
func Get(content []byte, path []string) (value json.RawMessage, ok bool, err error) {
	if len(path) == 0 {
		return nil, false, errors.New("get: empty key path")
	}
	name := strings.Join(path, ".")
	if isBlank(content) {
		return nil, false, nil
	}
	root, err := parse(content)
	if err != nil {
		return nil, false, fmt.Errorf("get %s: %w", name, err)
	}
	steps, err := walk(&root, path)
	if err != nil {
		return nil, false, fmt.Errorf("get %s: %w", name, err)
	}
	last := steps[len(steps)-1]
	if len(steps) < len(path) || last.index < 0 {
		return nil, false, nil
	}
	v := members(last.obj)[last.index].Value.Clone()
	v.Minimize()
	value, err = Canonical(v.Pack())
	if err != nil {
		return nil, false, fmt.Errorf("get %s: %w", name, err)
	}
	return value, true, nil
}

// Canonical returns the canonical form of a JSON value: compact
// encoding/json output with object keys sorted. Integers that fit in int64
// keep their exact digits; every other number is normalised through float64
// (so 1.0 and 1e0 both read as 1). Comparing canonical forms is how drift
// (a hand edit of a managed value) is told apart from mere reformatting.
func Canonical(raw []byte) (json.RawMessage, error) {
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		return nil, fmt.Errorf("invalid JSON value: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON value: %w", err)
	}
	v, err := normalizeNumbers(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func normalizeNumbers(v any) (any, error) {
	switch t := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(t.String(), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(t.String(), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s out of range", t)
		}
		return f, nil
	case map[string]any:
		for k, e := range t {
			n, err := normalizeNumbers(e)
			if err != nil {
				return nil, err
			}
			t[k] = n
		}
	case []any:
		for i, e := range t {
			n, err := normalizeNumbers(e)
			if err != nil {
				return nil, err
			}
			t[i] = n
		}
	}
	return v, nil
}

// quoteKey encodes an object key as a JSON string without HTML escaping.
func quoteKey(k string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(k)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// nest wraps v in one object per key, innermost last: nest([a b], v) is
// {"a":{"b":v}}.
func nest(keys []string, v []byte) []byte {
	for i := len(keys) - 1; i >= 0; i-- {
		var b []byte
		b = append(b, '{')
		b = append(b, quoteKey(keys[i])...)
		b = append(b, ':')
		b = append(b, v...)
		b = append(b, '}')
		v = b
	}
	return v
}

// render formats a JSON value for insertion: compact when inline, else
// indented with the file's unit, every line after the first prefixed with
// prefix (the indentation of the line the value starts on), with the file's
// line ending.
func render(v []byte, prefix string, l layout, inline bool) ([]byte, error) {
	var c bytes.Buffer
	if err := json.Compact(&c, v); err != nil {
		return nil, fmt.Errorf("invalid JSON value: %w", err)
	}
	if inline {
		return c.Bytes(), nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, c.Bytes(), prefix, l.unit); err != nil {
		return nil, err
	}
	b := out.Bytes()
	if l.nl != "\n" {
		b = bytes.ReplaceAll(b, []byte("\n"), []byte(l.nl))
	}
	return b, nil
}

// singleLine reports whether an object value is written on one line.
func singleLine(content []byte, v *hujson.Value) bool {
	return !bytes.ContainsAny(content[v.StartOffset:v.EndOffset], "\n")
}

func splice(content []byte, start, end int, ins []byte) []byte {
	out := make([]byte, 0, len(content)-(end-start)+len(ins))
	out = append(out, content[:start]...)
	out = append(out, ins...)
	return append(out, content[end:]...)
}

// Set makes the value at path equal to value.
//
// If the key exists, only its value's bytes are replaced (Receipt.Replaced,
// with the old text in Receipt.Old); if the existing value is already equal
// (canonically) the content is returned unchanged. Otherwise the member is
// inserted at the end of its parent object, creating missing parent objects
// (Receipt.Created). New text is indented like the file (its indentation
// unit, or two spaces; tabs if it uses tabs) at the right depth, with the
// file's line ending; in an object written on a single line the new member
// is written compactly on that line instead. Blank content is treated as
// "{}". A path through a non-object value, or through a duplicated key, is
// an error naming the path. The result is checked to parse and to read back
// as value before it is returned.
func Set(content []byte, path []string, value json.RawMessage) (out []byte, r Receipt, err error) {
	name := strings.Join(path, ".")
	if len(path) == 0 {
		return nil, r, errors.New("set: empty key path")
	}
	for _, k := range path {
		if !utf8.ValidString(k) {
			return nil, r, fmt.Errorf("set %s: key %q is not valid UTF-8", name, k)
		}
	}
	want, err := Canonical(value)
	if err != nil {
		return nil, r, fmt.Errorf("set %s: %w", name, err)
	}
	doc := content
	if isBlank(content) {
		orig := string(content)
		r.Doc = &orig
		doc = []byte("{}\n")
	}
	root, err := parse(doc)
	if err != nil {
		return nil, Receipt{}, fmt.Errorf("set %s: %w", name, err)
	}
	steps, err := walk(&root, path)
	if err != nil {
		return nil, Receipt{}, fmt.Errorf("set %s: %w", name, err)
	}
	l := detectLayout(doc)
	j := len(steps) - 1
	st := steps[j]
	if st.index >= 0 && j == len(path)-1 {
		out, r, err = replace(doc, st, want, value, l)
	} else {
		out, r.Closing, err = insert(doc, &root, st, path[j:], value, l)
		r.Created = len(path) - 1 - j
	}
	if err != nil {
		return nil, Receipt{}, fmt.Errorf("set %s: %w", name, err)
	}
	got, ok, err := Get(out, path)
	if err != nil || !ok || !bytes.Equal(got, want) {
		return nil, Receipt{}, fmt.Errorf("set %s: internal error: edited document does not read back (got %s, %v)", name, got, err)
	}
	return out, r, nil
}

// replace swaps the bytes of an existing value.
func replace(doc []byte, st step, want, value []byte, l layout) ([]byte, Receipt, error) {
	m := members(st.obj)[st.index]
	old := doc[m.Value.StartOffset:m.Value.EndOffset]
	r := Receipt{Replaced: true, Old: string(old)}
	oldValue := m.Value.Clone()
	oldValue.Minimize()
	if cur, err := Canonical(oldValue.Pack()); err == nil && bytes.Equal(cur, want) {
		return doc, r, nil
	}
	text, err := render(value, lineIndent(doc, m.Name.StartOffset), l, singleLine(doc, st.obj))
	if err != nil {
		return nil, Receipt{}, err
	}
	return splice(doc, m.Value.StartOffset, m.Value.EndOffset, text), r, nil
}

// insert adds the member keys[0] (with keys[1:] as created parents around
// value) at the end of the object st.obj. It returns the closing text it
// added, if any (see Receipt.Closing).
func insert(doc []byte, root *hujson.Value, st step, keys []string, value []byte, l layout) ([]byte, string, error) {
	obj := st.obj
	ms := members(obj)
	base := lineIndent(doc, obj.StartOffset)
	child := base + l.unit
	inline := len(ms) > 0 && singleLine(doc, obj)
	if len(ms) == 0 && !bytes.ContainsAny(doc, "\n") && len(members(root)) > 0 {
		inline = true // a one-line document stays one line
	}
	sp := ""
	if len(ms) > 0 {
		last := ms[len(ms)-1]
		if startsLine(doc, last.Name.StartOffset) {
			child = lineIndent(doc, last.Name.StartOffset)
		}
		if inline && bytes.Equal(last.Value.BeforeExtra, []byte(" ")) {
			sp = " "
		}
	}
	v, err := render(nest(keys[1:], value), child, l, inline)
	if err != nil {
		return nil, "", err
	}
	member := append(append(quoteKey(keys[0]), ':'), sp...)
	if !inline {
		member = append(member, ' ')
	}
	member = append(member, v...)
	lead := l.nl + child
	if inline {
		lead = sp
	}
	if len(ms) == 0 {
		pos := obj.StartOffset + 1
		ins := append([]byte(lead), member...)
		closing := ""
		if !inline && !bytes.ContainsAny(obj.Value.(*hujson.Object).AfterExtra, "\n") {
			closing = l.nl + base
			ins = append(ins, closing...)
		}
		if inline {
			ins = member
		}
		return splice(doc, pos, pos, ins), closing, nil
	}
	last := ms[len(ms)-1]
	comma := last.Value.EndOffset + len(last.Value.AfterExtra)
	if last.Value.AfterExtra != nil && comma < len(doc) && doc[comma] == ',' {
		// Trailing comma (HuJSON): keep the style, insert after it.
		ins := append(append([]byte(lead), member...), ',')
		return splice(doc, comma+1, comma+1, ins), "", nil
	}
	ins := append(append([]byte{','}, lead...), member...)
	pos := last.Value.EndOffset
	return splice(doc, pos, pos, ins), "", nil
}

// onlyWhitespace reports whether an object holds exactly one member and no
// comments anywhere outside that member's value (so removing the member
// loses nothing the user wrote).
func onlyWhitespace(obj *hujson.Value) bool {
	o := obj.Value.(*hujson.Object)
	if len(o.Members) != 1 || !o.AfterExtra.IsStandard() {
		return false
	}
	m := o.Members[0]
	return m.Name.BeforeExtra.IsStandard() && m.Name.AfterExtra.IsStandard() &&
		m.Value.BeforeExtra.IsStandard() && m.Value.AfterExtra.IsStandard()
}

// Delete undoes Set. With a Receipt that says Replaced, it puts the old
// value's exact text back in place of the current value. Otherwise it
// removes the member at path together with the comma and whitespace that
// Set added (comments the user wrote around it are kept), then removes
// parent objects Set created (r.Created) if they are now empty, and the
// closing text Set added to a formerly empty object. If the document is then
// an empty object and was blank before Set, the original blank content is
// returned. A missing key is not an error: content is returned unchanged,
// so prune can be re-run.
func Delete(content []byte, path []string, r Receipt) ([]byte, error) {
	name := strings.Join(path, ".")
	if len(path) == 0 {
		return nil, errors.New("delete: empty key path")
	}
	if isBlank(content) {
		return content, nil
	}
	root, err := parse(content)
	if err != nil {
		return nil, fmt.Errorf("delete %s: %w", name, err)
	}
	steps, err := walk(&root, path)
	if err != nil {
		return nil, fmt.Errorf("delete %s: %w", name, err)
	}
	if len(steps) < len(path) || steps[len(steps)-1].index < 0 {
		return content, nil
	}
	if r.Replaced {
		st := steps[len(steps)-1]
		v := members(st.obj)[st.index].Value
		if _, err := hujson.Parse([]byte(r.Old)); err != nil {
			return nil, fmt.Errorf("delete %s: old value in receipt: %w", name, err)
		}
		return splice(content, v.StartOffset, v.EndOffset, []byte(r.Old)), nil
	}
	t := len(path) - 1
	created := min(r.Created, len(path)-1)
	for t > len(path)-1-created && onlyWhitespace(steps[t].obj) {
		t--
	}
	receiver := t == len(path)-1-created
	closing := ""
	if receiver {
		closing = r.Closing
	}
	out := removeMember(content, steps[t], closing)
	if r.Doc != nil && IsEmptyObject(out) {
		return []byte(*r.Doc), nil
	}
	if _, err := parse(out); err != nil {
		return nil, fmt.Errorf("delete %s: internal error: result does not parse: %w", name, err)
	}
	return out, nil
}

// trimmedLen returns the length of extra without its trailing whitespace:
// the part (comments) that belongs to the user and must be kept.
func trimmedLen(extra []byte) int {
	return len(bytes.TrimRight(extra, " \t\r\n"))
}

// removeMember removes the member st.index of st.obj: its name, value, the
// separating comma and the whitespace before its name, but never a comment.
func removeMember(content []byte, st step, closing string) []byte {
	ms := members(st.obj)
	i := st.index
	m := ms[i]
	bx := m.Name.BeforeExtra
	nameWS := m.Name.StartOffset - len(bx) + trimmedLen(bx) // start of trailing whitespace before the name
	end := m.Value.EndOffset
	if i > 0 {
		p := ms[i-1]
		pComma := p.Value.EndOffset + len(p.Value.AfterExtra)
		if nameWS == pComma+1 {
			return splice(content, pComma, end, nil)
		}
		// A comment sits between the comma and the name: keep it.
		out := splice(content, nameWS, end, nil)
		return splice(out, pComma, pComma+1, nil)
	}
	mComma := m.Value.EndOffset + len(m.Value.AfterExtra)
	if len(ms) > 1 || (m.Value.AfterExtra != nil && mComma < len(content) && content[mComma] == ',') {
		return splice(content, nameWS, mComma+1, nil)
	}
	if closing != "" && bytes.HasPrefix(content[end:], []byte(closing)) {
		end += len(closing)
	}
	return splice(content, nameWS, end, nil)
}

// IsEmptyObject reports whether content is an object with no members and
// nothing but whitespace inside and around it ("{}", "{\n}\n"). actctl
// deletes a JSON file it created once it is in this state; a comment counts
// as user content, so a document with one is not empty.
func IsEmptyObject(content []byte) bool {
	v, err := hujson.Parse(content)
	if err != nil {
		return false
	}
	o, ok := v.Value.(*hujson.Object)
	return ok && len(o.Members) == 0 && o.AfterExtra.IsStandard() &&
		v.BeforeExtra.IsStandard() && v.AfterExtra.IsStandard()
}

// Offset returns where the member holding the value at path starts in
// content (the byte offset of its name): where a managed key stands in
// the document, by which reconcile orders the keys it takes out (a key
// Set inserts goes at the end of its object, after every key it depends
// on). ok is false if the key (or a parent) is absent or the document is
// blank.
func Offset(content []byte, path []string) (off int, ok bool, err error) {
	if len(path) == 0 || isBlank(content) {
		return 0, false, nil
	}
	root, err := parse(content)
	if err != nil {
		return 0, false, fmt.Errorf("offset %s: %w", strings.Join(path, "."), err)
	}
	steps, err := walk(&root, path)
	if err != nil {
		return 0, false, fmt.Errorf("offset %s: %w", strings.Join(path, "."), err)
	}
	last := steps[len(steps)-1]
	if len(steps) < len(path) || last.index < 0 {
		return 0, false, nil
	}
	return members(last.obj)[last.index].Name.StartOffset, true, nil
}
