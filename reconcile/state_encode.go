package reconcile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A direct encoder for State: it writes, byte for byte, what
// encoding/json's Encoder (SetEscapeHTML(false), and for actant.owned
// SetIndent("", "  ")) writes for a State — fields in declaration order
// with the same omitempty rules, map keys sorted, nil slices and maps as
// null, the trailing newline — without reflection and without indenting a
// second time. Strings that need an escape, and receipts (raw JSON), are
// written by encoding/json itself; a receipt that is not valid JSON makes
// the whole state go through encoding/json, which reports it. Equality
// with encoding/json is checked by TestStateEncoderMatchesJSON and
// FuzzStateEncoder.

var errRawInvalid = errors.New("state: receipt is not valid JSON")

// encodeState returns the encoding of st (entries sorted first), indented
// by two spaces when indent is set.
func encodeState(st *State, indent bool) []byte {
	for _, a := range st.Agents {
		if a != nil {
			sortEntryStates(a.Entries)
		}
	}
	e := stateEncoder{indent: indent, b: make([]byte, 0, stateSizeHint(st, indent))}
	if err := e.state(st); err == nil {
		return append(e.b, '\n')
	}
	return encodeStateJSON(st, indent)
}

// encodeStateJSON is the same encoding by encoding/json.
func encodeStateJSON(st *State, indent bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(st); err != nil {
		panic(fmt.Sprintf("reconcile: encoding state: %v", err)) // only plain data
	}
	return b.Bytes()
}

// stateSizeHint estimates the encoding's size from its strings and a
// per-field allowance for names, quotes and indentation, so the buffer is
// allocated once in the common case.
func stateSizeHint(st *State, indent bool) int {
	field := 10
	if indent {
		field = 24
	}
	n := 256
	for name, a := range st.Agents {
		if a == nil {
			continue
		}
		n += len(name) + len(a.Dir) + 4*field
		for i := range a.Entries {
			x := &a.Entries[i]
			n += len(x.Path) + len(x.Mode) + len(x.SHA256) + len(x.Style) + len(x.Format) + len(x.Sep) + len(x.Backup) + len(x.FileSHA) + 8*field
			for _, d := range x.Dirs {
				n += len(d) + field/2
			}
			for j := range x.Keys {
				k := &x.Keys[j]
				n += len(k.SHA256) + len(k.Want) + len(k.Receipt)*2 + 6*field
				for _, p := range k.Path {
					n += len(p) + field/2
				}
			}
		}
	}
	return n
}

type stateEncoder struct {
	b      []byte
	indent bool
	depth  int
	// first: the innermost open object or array has no element yet.
	first bool
}

// newlineIndent is a newline and the indentation of the deepest level a
// State has: 8 (a key's path); receipts are indented by encoding/json.
const newlineIndent = "\n                "

func (e *stateEncoder) newline() {
	if e.indent {
		e.b = append(e.b, newlineIndent[:1+2*e.depth]...)
	}
}

func (e *stateEncoder) open(c byte) {
	e.b = append(e.b, c)
	e.depth++
	e.first = true
}

// close ends the innermost object or array; an empty one stays "{}" or
// "[]" as encoding/json's indenting leaves it.
func (e *stateEncoder) close(c byte) {
	e.depth--
	if !e.first {
		e.newline()
	}
	e.b = append(e.b, c)
	e.first = false
}

// elem starts an element of the innermost array.
func (e *stateEncoder) elem() {
	if !e.first {
		e.b = append(e.b, ',')
	}
	e.first = false
	e.newline()
}

// key starts the member k of the innermost object.
func (e *stateEncoder) key(k string) {
	e.elem()
	e.str(k)
	e.b = append(e.b, ':')
	if e.indent {
		e.b = append(e.b, ' ')
	}
}

// str writes s as a JSON string: directly when it is printable ASCII
// without a quote or backslash, else as encoding/json escapes it.
func (e *stateEncoder) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			e.b = appendJSONString(e.b, s)
			return
		}
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, s...)
	e.b = append(e.b, '"')
}

func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

func (e *stateEncoder) strField(k, v string, omitEmpty bool) {
	if v == "" && omitEmpty {
		return
	}
	e.key(k)
	e.str(v)
}

func (e *stateEncoder) intField(k string, v int, omitEmpty bool) {
	if v == 0 && omitEmpty {
		return
	}
	e.key(k)
	e.b = strconv.AppendInt(e.b, int64(v), 10)
}

func (e *stateEncoder) trueField(k string, v bool) {
	if v {
		e.key(k)
		e.b = append(e.b, "true"...)
	}
}

func (e *stateEncoder) strings(v []string) {
	if v == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.open('[')
	for _, s := range v {
		e.elem()
		e.str(s)
	}
	e.close(']')
}

func (e *stateEncoder) state(st *State) error {
	e.open('{')
	e.intField("version", st.Version, false)
	e.strField("root", st.Root, true)
	e.strField("configDigest", st.ConfigDigest, true)
	e.strField("lockDigest", st.LockDigest, true)
	e.strField("owned", st.Owned, true)
	e.key("agents")
	if st.Agents == nil {
		e.b = append(e.b, "null"...)
	} else {
		names := make([]string, 0, len(st.Agents))
		for n := range st.Agents {
			names = append(names, n)
		}
		slices.Sort(names)
		e.open('{')
		for _, n := range names {
			e.key(n)
			if err := e.agent(st.Agents[n]); err != nil {
				return err
			}
		}
		e.close('}')
	}
	e.close('}')
	return nil
}

func (e *stateEncoder) agent(a *AgentState) error {
	if a == nil {
		e.b = append(e.b, "null"...)
		return nil
	}
	e.open('{')
	e.strField("dir", a.Dir, false)
	e.key("entries")
	if a.Entries == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.open('[')
		for i := range a.Entries {
			e.elem()
			if err := e.entry(&a.Entries[i]); err != nil {
				return err
			}
		}
		e.close(']')
	}
	e.close('}')
	return nil
}

func (e *stateEncoder) entry(x *EntryState) error {
	e.open('{')
	e.strField("path", x.Path, false)
	e.strField("mode", string(x.Mode), false)
	e.strField("sha256", x.SHA256, true)
	e.strField("style", x.Style, true)
	e.strField("format", x.Format, true)
	e.strField("sep", x.Sep, true)
	if len(x.Keys) > 0 {
		e.key("keys")
		e.open('[')
		for i := range x.Keys {
			e.elem()
			if err := e.keyState(&x.Keys[i]); err != nil {
				return err
			}
		}
		e.close(']')
	}
	e.trueField("created", x.Created)
	e.trueField("adopted", x.Adopted)
	e.trueField("exec", x.Exec)
	e.trueField("claim", x.Claim)
	e.strField("backup", x.Backup, true)
	e.strField("fileSha256", x.FileSHA, true)
	if len(x.Dirs) > 0 {
		e.key("dirs")
		e.strings(x.Dirs)
	}
	e.close('}')
	return nil
}

func (e *stateEncoder) keyState(k *KeyState) error {
	e.open('{')
	e.key("path")
	e.strings(k.Path)
	e.strField("sha256", k.SHA256, false)
	e.strField("want", k.Want, true)
	if len(k.Receipt) > 0 {
		e.key("receipt")
		if err := e.raw(k.Receipt); err != nil {
			return err
		}
	}
	e.close('}')
	return nil
}

// raw writes a receipt as encoding/json does a json.RawMessage: compacted,
// and, when indenting, indented at the current depth.
func (e *stateEncoder) raw(m json.RawMessage) error {
	if !e.indent {
		// Compacted in place, onto the end of the encoding (on an
		// error the whole state goes to encoding/json).
		out := bytes.NewBuffer(e.b)
		err := json.Compact(out, m)
		e.b = out.Bytes()
		if err != nil {
			return errRawInvalid
		}
		return nil
	}
	var c bytes.Buffer
	if err := json.Compact(&c, m); err != nil {
		return errRawInvalid
	}
	out := bytes.NewBuffer(e.b)
	err := json.Indent(out, c.Bytes(), strings.Repeat("  ", e.depth), "  ")
	e.b = out.Bytes()
	if err != nil {
		return errRawInvalid
	}
	return nil
}
