package reconcile

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/actctl/actctl/materialize"
)

// A fast decoder for state.json. The state of 1000 agents is ~8.5 MB and
// encoding/json spends most of a no-op apply's CPU on it (reflection and
// one allocation per string). This decoder reads exactly the canonical
// form State.Encode writes — the field names of State, AgentState,
// EntryState and KeyState, in any order — taking every string as a
// substring of the file's bytes themselves (not of a copy: in a fresh
// process a copy of the 180 KB state of docs/benchmarks.md's job is 45
// pages of new memory to fault in, for every reader). Anything else (an unknown or
// differently-cased field, an escape it does not handle, a number that is
// not a plain integer, null where an object is due, invalid UTF-8) makes
// it give up, and parseState decodes the file with encoding/json instead,
// so the result is always what encoding/json would produce.

var errSlowPath = errors.New("state: not in canonical form")

type stateDecoder struct {
	s string
	i int
}

// decodeStateFast decodes data, which must not change afterwards: the
// decoded strings share its memory (ReadState's callers only compare and
// hash it).
func decodeStateFast(data []byte) (*State, error) {
	d := &stateDecoder{s: unsafe.String(unsafe.SliceData(data), len(data))}
	st := NewState()
	if err := d.state(st); err != nil {
		return nil, err
	}
	d.ws()
	if d.i != len(d.s) {
		return nil, errSlowPath
	}
	return st, nil
}

func (d *stateDecoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte (0 at the end).
func (d *stateDecoder) peek() byte {
	d.ws()
	if d.i >= len(d.s) {
		return 0
	}
	return d.s[d.i]
}

func (d *stateDecoder) expect(c byte) error {
	if d.peek() != c {
		return errSlowPath
	}
	d.i++
	return nil
}

// null consumes a null literal if one is next.
func (d *stateDecoder) null() bool {
	if d.peek() == 'n' && len(d.s)-d.i >= 4 && d.s[d.i:d.i+4] == "null" {
		d.i += 4
		return true
	}
	return false
}

// str reads a string; one without escapes is a substring of the input.
func (d *stateDecoder) str() (string, error) {
	if d.peek() != '"' {
		return "", errSlowPath
	}
	start := d.i + 1
	n := strings.IndexByte(d.s[start:], '"')
	if n < 0 {
		return "", errSlowPath
	}
	v := d.s[start : start+n]
	if strings.IndexByte(v, '\\') >= 0 {
		return d.escaped()
	}
	for i := 0; i < len(v); i++ {
		if v[i]-0x20 >= 0x60 { // a control character or not ASCII
			for ; i < len(v); i++ {
				if v[i] < 0x20 {
					return "", errSlowPath // invalid JSON
				}
			}
			if !utf8.ValidString(v) {
				return "", errSlowPath // encoding/json would substitute U+FFFD
			}
		}
	}
	d.i = start + n + 1
	return v, nil
}

// escaped reads a string with escapes (rare: separators, odd names),
// decoded by encoding/json itself.
func (d *stateDecoder) escaped() (string, error) {
	start := d.i
	if err := d.skipString(); err != nil {
		return "", err
	}
	var v string
	if err := json.Unmarshal([]byte(d.s[start:d.i]), &v); err != nil {
		return "", errSlowPath
	}
	return v, nil
}

func (d *stateDecoder) integer() (int, error) {
	d.ws()
	j := d.i
	if j < len(d.s) && d.s[j] == '-' {
		j++
	}
	k := j
	for k < len(d.s) && d.s[k] >= '0' && d.s[k] <= '9' {
		k++
	}
	if k == j || k-j > 18 || (d.s[j] == '0' && k-j > 1) {
		return 0, errSlowPath
	}
	if k < len(d.s) {
		switch d.s[k] {
		case '.', 'e', 'E':
			return 0, errSlowPath
		}
	}
	n, err := strconv.Atoi(d.s[d.i:k])
	if err != nil {
		return 0, errSlowPath
	}
	d.i = k
	return n, nil
}

func (d *stateDecoder) boolean() (bool, error) {
	d.ws()
	switch {
	case len(d.s)-d.i >= 4 && d.s[d.i:d.i+4] == "true":
		d.i += 4
		return true, nil
	case len(d.s)-d.i >= 5 && d.s[d.i:d.i+5] == "false":
		d.i += 5
		return false, nil
	}
	return false, errSlowPath
}

// seq walks the members of an object or the elements of an array:
//
//	it := seq{close: '}'}
//	for d.next(&it) { ... }
//	if it.err != nil { ... }
type seq struct {
	close   byte
	started bool
	err     error
}

// open consumes the opening bracket of it.
func (d *stateDecoder) open(it *seq) bool {
	want := byte('{')
	if it.close == ']' {
		want = '['
	}
	if err := d.expect(want); err != nil {
		it.err = err
		return false
	}
	return true
}

// next moves to the next member or element (false at the end or on an
// error, recorded in it.err).
func (d *stateDecoder) next(it *seq) bool {
	c := d.peek()
	if !it.started {
		it.started = true
		if c == it.close {
			d.i++
			return false
		}
		return true
	}
	switch c {
	case ',':
		d.i++
		return true
	case it.close:
		d.i++
		return false
	}
	it.err = errSlowPath
	return false
}

// name reads a member name and its colon.
func (d *stateDecoder) name() (string, error) {
	n, err := d.str()
	if err != nil {
		return "", err
	}
	return n, d.expect(':')
}

func (d *stateDecoder) strOrNull(dst *string) error {
	if d.null() {
		return nil
	}
	v, err := d.str()
	*dst = v
	return err
}

func (d *stateDecoder) strings() ([]string, error) {
	if d.null() {
		return nil, nil
	}
	out := []string{}
	it := seq{close: ']'}
	if !d.open(&it) {
		return nil, it.err
	}
	for d.next(&it) {
		v, err := d.str()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, it.err
}

func (d *stateDecoder) state(st *State) error {
	it := seq{close: '}'}
	if !d.open(&it) {
		return it.err
	}
	for d.next(&it) {
		name, err := d.name()
		if err != nil {
			return err
		}
		switch name {
		case "version":
			if !d.null() {
				st.Version, err = d.integer()
			}
		case "root":
			err = d.strOrNull(&st.Root)
		case "configDigest":
			err = d.strOrNull(&st.ConfigDigest)
		case "lockDigest":
			err = d.strOrNull(&st.LockDigest)
		case "owned":
			err = d.strOrNull(&st.Owned)
		case "agents":
			err = d.agents(st)
		default:
			err = errSlowPath
		}
		if err != nil {
			return err
		}
	}
	return it.err
}

func (d *stateDecoder) agents(st *State) error {
	if d.null() {
		st.Agents = nil
		return nil
	}
	if st.Agents == nil {
		st.Agents = map[string]*AgentState{}
	}
	it := seq{close: '}'}
	if !d.open(&it) {
		return it.err
	}
	for d.next(&it) {
		name, err := d.name()
		if err != nil {
			return err
		}
		if _, dup := st.Agents[name]; dup {
			return errSlowPath
		}
		a := &AgentState{}
		if err := d.agent(a); err != nil {
			return err
		}
		st.Agents[name] = a
	}
	return it.err
}

func (d *stateDecoder) agent(a *AgentState) error {
	it := seq{close: '}'}
	if !d.open(&it) {
		return it.err
	}
	for d.next(&it) {
		name, err := d.name()
		if err != nil {
			return err
		}
		switch name {
		case "dir":
			err = d.strOrNull(&a.Dir)
		case "entries":
			err = d.entries(a)
		default:
			err = errSlowPath
		}
		if err != nil {
			return err
		}
	}
	return it.err
}

func (d *stateDecoder) entries(a *AgentState) error {
	if d.null() {
		a.Entries = nil
		return nil
	}
	a.Entries = make([]EntryState, 0, d.entriesHint())
	it := seq{close: ']'}
	if !d.open(&it) {
		return it.err
	}
	for d.next(&it) {
		a.Entries = append(a.Entries, EntryState{})
		if err := d.entry(&a.Entries[len(a.Entries)-1]); err != nil {
			return err
		}
	}
	return it.err
}

// entriesHint guesses the number of entries of the agent being read, for
// the slice's capacity: in the canonical form each entry starts with
// {"path":" and the next agent with {"dir":" (neither can occur inside a
// string, where the quotes are escaped). Only the capacity depends on it.
func (d *stateDecoder) entriesHint() int {
	rest := d.s[d.i:]
	if end := strings.Index(rest, `{"dir":"`); end >= 0 {
		rest = rest[:end]
	}
	return max(strings.Count(rest, `{"path":"`), 4)
}

func internMode(s string) materialize.Mode {
	switch s {
	case "file":
		return materialize.ModeFile
	case "block":
		return materialize.ModeBlock
	case "keys":
		return materialize.ModeKeys
	case "dir":
		return materialize.ModeDir
	}
	return materialize.Mode(s)
}

func (d *stateDecoder) entry(e *EntryState) error {
	it := seq{close: '}'}
	if !d.open(&it) {
		return it.err
	}
	for d.next(&it) {
		name, err := d.name()
		if err != nil {
			return err
		}
		switch name {
		case "path":
			err = d.strOrNull(&e.Path)
		case "mode":
			var m string
			err = d.strOrNull(&m)
			e.Mode = internMode(m)
		case "sha256":
			err = d.strOrNull(&e.SHA256)
		case "style":
			err = d.strOrNull(&e.Style)
		case "format":
			err = d.strOrNull(&e.Format)
		case "sep":
			err = d.strOrNull(&e.Sep)
		case "seq":
			err = d.oldSeq()
		case "keys":
			err = d.keys(e)
		case "created":
			if !d.null() {
				e.Created, err = d.boolean()
			}
		case "adopted":
			if !d.null() {
				e.Adopted, err = d.boolean()
			}
		case "exec":
			if !d.null() {
				e.Exec, err = d.boolean()
			}
		case "claim":
			if !d.null() {
				e.Claim, err = d.boolean()
			}
		case "backup":
			err = d.strOrNull(&e.Backup)
		case "fileSha256":
			err = d.strOrNull(&e.FileSHA)
		case "dirs":
			e.Dirs, err = d.strings()
		default:
			err = errSlowPath
		}
		if err != nil {
			return err
		}
	}
	return it.err
}

func (d *stateDecoder) keys(e *EntryState) error {
	if d.null() {
		e.Keys = nil
		return nil
	}
	e.Keys = []KeyState{}
	it := seq{close: ']'}
	if !d.open(&it) {
		return it.err
	}
	for d.next(&it) {
		e.Keys = append(e.Keys, KeyState{})
		if err := d.key(&e.Keys[len(e.Keys)-1]); err != nil {
			return err
		}
	}
	return it.err
}

func (d *stateDecoder) key(k *KeyState) error {
	it := seq{close: '}'}
	if !d.open(&it) {
		return it.err
	}
	for d.next(&it) {
		name, err := d.name()
		if err != nil {
			return err
		}
		switch name {
		case "path":
			k.Path, err = d.strings()
		case "sha256":
			err = d.strOrNull(&k.SHA256)
		case "want":
			err = d.strOrNull(&k.Want)
		case "seq":
			err = d.oldSeq()
		case "receipt":
			k.Receipt, err = d.raw()
		default:
			err = errSlowPath
		}
		if err != nil {
			return err
		}
	}
	return it.err
}

// oldSeq passes over the "seq" of a record written before records held
// no counters (EntryState.Sep): read, and ignored.
func (d *stateDecoder) oldSeq() error {
	if d.null() {
		return nil
	}
	_, err := d.integer()
	return err
}

// raw returns the bytes of the next value (json.RawMessage keeps them as
// they are, null included).
func (d *stateDecoder) raw() (json.RawMessage, error) {
	d.ws()
	start := d.i
	if err := d.skip(0); err != nil {
		return nil, err
	}
	v := []byte(d.s[start:d.i])
	if !json.Valid(v) {
		return nil, errSlowPath
	}
	return v, nil
}

// skip passes over one value; json.Valid checks it afterwards.
func (d *stateDecoder) skip(depth int) error {
	if depth > 100 {
		return errSlowPath
	}
	switch c := d.peek(); {
	case c == '{':
		d.i++
		if d.peek() == '}' {
			d.i++
			return nil
		}
		for {
			if err := d.skipString(); err != nil {
				return err
			}
			if err := d.expect(':'); err != nil {
				return err
			}
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			switch d.peek() {
			case ',':
				d.i++
			case '}':
				d.i++
				return nil
			default:
				return errSlowPath
			}
		}
	case c == '[':
		d.i++
		if d.peek() == ']' {
			d.i++
			return nil
		}
		for {
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			switch d.peek() {
			case ',':
				d.i++
			case ']':
				d.i++
				return nil
			default:
				return errSlowPath
			}
		}
	case c == '"':
		return d.skipString()
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		for d.i < len(d.s) {
			switch d.s[d.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return nil
			}
			d.i++
		}
		return nil
	}
	return errSlowPath
}

// skipString passes over a string, escapes included.
func (d *stateDecoder) skipString() error {
	if d.peek() != '"' {
		return errSlowPath
	}
	for j := d.i + 1; j < len(d.s); j++ {
		switch d.s[j] {
		case '\\':
			j++
		case '"':
			d.i = j + 1
			return nil
		}
	}
	return errSlowPath
}
