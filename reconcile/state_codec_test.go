package reconcile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/actctl/actctl/materialize"
)

func codecSample() *State {
	st := NewState()
	st.ConfigDigest, st.LockDigest, st.Owned = "c0ffee", "10c4", "0e"
	st.Agents["a"] = &AgentState{Dir: "/ws/a", Entries: []EntryState{
		{Path: ".mcp.json", Mode: materialize.ModeKeys, Format: "json", FileSHA: "f1", Created: true, Keys: []KeyState{
			{Path: []string{"mcpServers", "fs"}, SHA256: "k1", Want: "w1", Receipt: json.RawMessage(`{"closing":"\n","doc":"","made":[["a","b"]],"n":-12.5e3,"t":true,"z":null}`)},
			{Path: []string{"x"}, SHA256: "k2"},
		}},
		{Path: "CLAUDE.md", Mode: materialize.ModeBlock, Style: "html", SHA256: "b1", Sep: "\n\n", Backup: ".actant/backup/x/CLAUDE.md"},
		{Path: "logs", Mode: materialize.ModeDir, Dirs: []string{".", "logs"}},
		{Path: "s/\u00e9t\u00e9/SKILL.md", Mode: materialize.ModeFile, SHA256: "s1", FileSHA: "s1", Dirs: []string{"s"}, Exec: true},
	}}
	st.Agents["b \u2603"] = &AgentState{Dir: "/ws/b", Entries: []EntryState{}}
	return st
}

// TestStateCodec: the fast decoder gives what encoding/json gives, on the
// canonical encoding (where it must not fall back) and on inputs it must
// hand to encoding/json.
func TestStateCodec(t *testing.T) {
	canonical := codecSample().Encode()
	if _, err := decodeStateFast(canonical); err != nil {
		t.Fatalf("canonical state took the slow path: %v", err)
	}
	indented, _ := json.MarshalIndent(codecSample(), "", "  ")
	if _, err := decodeStateFast(indented); err != nil {
		t.Fatalf("indented state took the slow path: %v", err)
	}
	c := string(canonical)
	inputs := map[string]string{
		"canonical":      c,
		"indented":       string(indented),
		"escaped string": strings.Replace(c, `"/ws/a"`, `"/ws/\u0061\n\ud83d\ude00\/"`, 1),
		"bad escape":     strings.Replace(c, `"/ws/a"`, `"/ws/\x"`, 1),
		"lone surrogate": strings.Replace(c, `"/ws/a"`, `"\ud800"`, 1),
		"escaped name":   strings.Replace(c, `"b ☃"`, `"b\"q"`, 1),
		"unknown field":  strings.Replace(c, `"dir":"/ws/a"`, `"dir":"/ws/a","extra":[1,{"x":2}]`, 1),
		"field case":     strings.Replace(c, `"dir":"/ws/a"`, `"Dir":"/ws/a"`, 1),
		"bad utf8":       strings.Replace(c, `"/ws/a"`, "\"/ws/\xff\"", 1),
		"float seq":      strings.Replace(c, `"seq":3`, `"seq":3.0`, 1),
		"null fields":    strings.Replace(c, `"dirs":["s"]`, `"dirs":null,"sep":null,"seq":null,"keys":null,"created":null`, 1),
		"null entries":   strings.Replace(c, `"entries":[]`, `"entries":null`, 1),
		"null agents":    `{"version":1,"agents":null}`,
		"empty":          `{}`,
		"trailing junk":  c + `x`,
		"trailing comma": strings.Replace(c, `"dirs":["s"]`, `"dirs":["s",]`, 1),
		"dup agent":      strings.Replace(c, `"agents":{`, `"agents":{"b ☃":{"dir":"/x","entries":[]},`, 1),
	}
	for name, in := range inputs {
		want := NewState()
		werr := json.Unmarshal([]byte(in), want)
		got, gerr := parseState([]byte(in))
		if (werr != nil) != (gerr != nil) {
			t.Errorf("%s: encoding/json error %v, parseState error %v", name, werr, gerr)
			continue
		}
		if werr != nil {
			continue
		}
		if want.Agents == nil {
			want.Agents = map[string]*AgentState{}
		}
		want.Version = StateVersion
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded\n%#v\nwant\n%#v", name, got, want)
		}
	}
}

// TestStateEqual: a decoded state equals the state it was encoded from,
// and any change of a recorded field makes it unequal.
func TestStateEqual(t *testing.T) {
	a := codecSample()
	for _, ag := range a.Agents {
		sortEntryStates(ag.Entries)
	}
	b, err := parseState(a.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !equalStates(a, b) {
		t.Fatal("a state differs from its own decoding")
	}
	changes := []func(s *State){
		func(s *State) { s.ConfigDigest = "x" },
		func(s *State) { s.LockDigest = "x" },
		func(s *State) { s.Agents["c"] = &AgentState{Dir: "/c"} },
		func(s *State) { s.Agents["a"].Dir = "/x" },
		func(s *State) { s.Agents["a"].Entries = s.Agents["a"].Entries[1:] },
		func(s *State) { s.Agents["a"].Entries[0].FileSHA = "x" },
		func(s *State) { s.Agents["a"].Entries[0].Created = false },
		func(s *State) { s.Agents["a"].Entries[0].Keys[0].Receipt = json.RawMessage(`{}`) },
		func(s *State) { s.Agents["a"].Entries[0].Keys[0].Want = "x" },
		func(s *State) { s.Agents["a"].Entries[0].Keys[1].Path = []string{"y"} },
		func(s *State) { s.Agents["a"].Entries[1].Sep = "\n" },
		func(s *State) { s.Agents["a"].Entries[1].Claim = true },
		func(s *State) { s.Agents["a"].Entries[1].Backup = "" },
		func(s *State) { s.Agents["a"].Entries[2].Dirs = []string{"."} },
		func(s *State) { s.Agents["a"].Entries[3].SHA256 = "x" },
		func(s *State) { s.Agents["a"].Entries[3].Exec = false },
	}
	for i, change := range changes {
		c, _ := parseState(a.Encode())
		change(c)
		if equalStates(a, c) {
			t.Errorf("change %d not seen", i)
		}
	}
}

// TestTargetsDigestText: the digest is the one the fmt-based formula gave
// (recorded ConfigDigests stay valid), and the entry digests are right.
func TestTargetsDigestText(t *testing.T) {
	targets := []*materialize.Target{
		{Agent: "a\"b", Dir: "/ws/é", Conflict: "append", Entries: []materialize.Entry{
			{Path: "x/SKILL.md", Mode: materialize.ModeFile, Content: []byte("hi\n")},
			{Path: "CLAUDE.md", Mode: materialize.ModeBlock, Style: "html", Content: []byte("a\r\nb")},
			{Path: ".mcp.json", Mode: materialize.ModeKeys, Format: "json", Keys: []materialize.Key{
				{Path: []string{"mcpServers", "f\ts"}, Value: json.RawMessage(`{"command":"x"}`)},
				{Path: nil, Value: json.RawMessage(`1`)},
			}},
		}},
		{Agent: "c", Dir: "/ws/c"},
	}
	h := sha256.New()
	for _, t := range targets {
		fmt.Fprintf(h, "agent %q %q %q\n", t.Agent, t.Dir, t.Conflict)
		for _, e := range t.Entries {
			fmt.Fprintf(h, "%q %s %s %s %s\n", e.Path, e.Mode, e.Style, e.Format, sum(e.Content))
			for _, k := range e.Keys {
				fmt.Fprintf(h, " %q %s\n", k.Path, sum(k.Value))
			}
		}
	}
	want := hex.EncodeToString(h.Sum(nil))
	got, sums := digestTargets(targets)
	if got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
	for i, tg := range targets {
		for j := range tg.Entries {
			e, s := &tg.Entries[j], &sums[i][j]
			if !s.content.is(sum(e.Content)) || !s.blockIs(e, sum(normBody(e.Content))) || s.blockIs(e, sum(e.Content)) != (sum(e.Content) == sum(normBody(e.Content))) {
				t.Errorf("%s: entry digests wrong", e.Path)
			}
			for k := range e.Keys {
				if !s.keys[k].is(sum(e.Keys[k].Value)) || s.keys[k].is(sum(e.Content)) {
					t.Errorf("%s: key digest wrong", e.Path)
				}
			}
		}
	}
}

// fieldsSample is a state with one of everything: one agent, one entry
// and one key, every recorded field set.
func fieldsSample() *State {
	st := NewState()
	st.Root, st.ConfigDigest, st.LockDigest, st.Owned = "/ws", "c0ffee", "10c4", "0e"
	st.Agents["a"] = &AgentState{Dir: "/ws/a", Entries: []EntryState{{
		Path: "CLAUDE.md", Mode: materialize.ModeBlock, SHA256: "b1", Style: "html", Format: "md",
		Sep: "\n\n", Created: true, Adopted: true, Exec: true, Claim: true, Backup: ".actant/backup/x",
		FileSHA: "f1", Dirs: []string{"."},
		Keys: []KeyState{{Path: []string{"k"}, SHA256: "k1", Want: "w1", Receipt: json.RawMessage(`{"made":[]}`)}},
	}}}
	return st
}

// TestStateFieldsSeen changes every field of the state types, one at a
// time (and adds an element to every list and renames every map key), and
// requires the fast decoder to read the changed state back exactly and
// equalStates to tell it from the original. A field added to State,
// AgentState, EntryState or KeyState that either of them forgets fails
// here. Fields tagged json:"-" (Alt) are never written, so neither the
// file nor equalStates carries them.
func TestStateFieldsSeen(t *testing.T) {
	changes := map[string]func(*State){}
	stateChanges(t, reflect.ValueOf(fieldsSample()), "State", reflect.ValueOf, changes)
	if len(changes) < 20 {
		t.Fatalf("only %d changes found", len(changes))
	}
	orig := fieldsSample()
	if got, err := decodeStateFast(orig.Encode()); err != nil || !reflect.DeepEqual(got, orig) || !equalStates(orig, got) {
		t.Fatalf("the sample does not round-trip: %v\n%#v", err, got)
	}
	for name, change := range changes {
		s := fieldsSample()
		change(s)
		enc := s.Encode()
		got, err := decodeStateFast(enc)
		switch {
		case err != nil:
			t.Errorf("%s changed: the fast decoder gave up (%v) on %s", name, err, enc)
		case !reflect.DeepEqual(got, s):
			t.Errorf("%s changed: the fast decoder read\n%#v\nfrom %s", name, got, enc)
		}
		if equalStates(orig, s) {
			t.Errorf("%s changed: equalStates does not see it", name)
		}
	}
}

// stateChanges adds to out, by field name, a change of every field under
// v, which at finds in any state made by fieldsSample.
func stateChanges(t *testing.T, v reflect.Value, name string, at func(any) reflect.Value, out map[string]func(*State)) {
	t.Helper()
	change := func(name string, f func(reflect.Value)) { out[name] = func(s *State) { f(at(s)) } }
	switch {
	case v.Type() == reflect.TypeFor[json.RawMessage]():
		change(name, func(x reflect.Value) { x.SetBytes([]byte(`{"changed":` + string(x.Bytes()) + `}`)) })
	case v.Kind() == reflect.Pointer:
		stateChanges(t, v.Elem(), name, func(s any) reflect.Value { return at(s).Elem() }, out)
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			switch {
			case f.Tag.Get("json") == "-":
			case !f.IsExported():
				t.Errorf("%s.%s is unexported: encoding/json does not write it", name, f.Name)
			default:
				stateChanges(t, v.Field(i), name+"."+f.Name, func(s any) reflect.Value { return at(s).Field(i) }, out)
			}
		}
	case v.Kind() == reflect.Map:
		for _, k := range v.MapKeys() {
			stateChanges(t, v.MapIndex(k), fmt.Sprintf("%s[%q]", name, k), func(s any) reflect.Value { return at(s).MapIndex(k) }, out)
			change(fmt.Sprintf("%s[%q] key", name, k), func(m reflect.Value) {
				e := m.MapIndex(k)
				m.SetMapIndex(k, reflect.Value{})
				m.SetMapIndex(reflect.ValueOf(k.String()+"x"), e)
			})
		}
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		change(name, func(x reflect.Value) { x.Set(reflect.Append(x, reflect.ValueOf("x"))) })
	case v.Kind() == reflect.Slice:
		if v.Len() == 0 {
			t.Fatalf("%s is empty in fieldsSample: give it an element", name)
		}
		stateChanges(t, v.Index(0), name+"[0]", func(s any) reflect.Value { return at(s).Index(0) }, out)
		change(name+" grown", func(x reflect.Value) { x.Set(reflect.Append(x, reflect.Zero(x.Type().Elem()))) })
	case v.Kind() == reflect.String:
		change(name, func(x reflect.Value) { x.SetString(x.String() + "x") })
	case v.Kind() == reflect.Int:
		change(name, func(x reflect.Value) { x.SetInt(x.Int() + 1) })
	case v.Kind() == reflect.Bool:
		change(name, func(x reflect.Value) { x.SetBool(!x.Bool()) })
	default:
		t.Errorf("%s is a %s: teach stateChanges (and the fast decoder and equalStates) to change it", name, v.Type())
	}
}

// TestStateDecodeSharesTheBytes: the fast decoder takes its strings from
// the bytes read instead of from a copy of them (in a fresh process a
// copy of a large state is that much new memory to fault in).
func TestStateDecodeSharesTheBytes(t *testing.T) {
	st := NewState()
	st.Agents["a"] = &AgentState{Dir: "/ws", Entries: []EntryState{
		{Path: "CLAUDE.md", Mode: materialize.ModeBlock, SHA256: "b1", Sep: "\n\n"},
	}}
	data := st.Encode()
	got, err := decodeStateFast(data)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[len(data)-1]))
	for _, s := range []string{got.Agents["a"].Dir, got.Agents["a"].Entries[0].Path, got.Agents["a"].Entries[0].SHA256} {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); p < lo || p > hi {
			t.Errorf("%q is a copy, not a part of the bytes decoded", s)
		}
	}
}

// TestOldSeqIsRead: records written while they held insertion counters
// ("seq", committed in users' repositories) are read by the fast decoder,
// the counters ignored, and encode again without them. (issue #20 item 2)
func TestOldSeqIsRead(t *testing.T) {
	old := `{"version":1,"agents":{"a":{"dir":"/ws","entries":[` +
		`{"path":".mcp.json","mode":"keys","format":"json","keys":[{"path":["mcpServers","fs"],"sha256":"k","seq":2,"receipt":{"created":1}}]},` +
		`{"path":"CLAUDE.md","mode":"block","sha256":"b","style":"html","sep":"\n","seq":1},` +
		`{"path":"x","mode":"block","seq":null}]}}}`
	st, err := decodeStateFast([]byte(old))
	if err != nil {
		t.Fatalf("fast decoder: %v", err)
	}
	slow := NewState()
	if err := json.Unmarshal([]byte(old), slow); err != nil {
		t.Fatal(err)
	}
	if !equalStates(st, slow) {
		t.Errorf("fast and slow decoders differ:\n%s\n%s", st.Encode(), slow.Encode())
	}
	if enc := string(st.Encode()) + string(encodeOwned(st)); strings.Contains(enc, "seq") {
		t.Errorf("a counter is written again:\n%s", enc)
	}
	if e := st.Agents["a"].Entries; e[0].Keys[0].SHA256 != "k" || e[1].Sep != "\n" || len(e) != 3 {
		t.Errorf("read: %+v", e)
	}
}
