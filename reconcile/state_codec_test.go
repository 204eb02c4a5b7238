package reconcile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/actctl/actctl/materialize"
)

func codecSample() *State {
	st := NewState()
	st.ConfigDigest, st.LockDigest, st.Owned = "c0ffee", "10c4", "0e"
	st.Agents["a"] = &AgentState{Dir: "/ws/a", Entries: []EntryState{
		{Path: ".mcp.json", Mode: materialize.ModeKeys, Format: "json", FileSHA: "f1", Created: true, Keys: []KeyState{
			{Path: []string{"mcpServers", "fs"}, SHA256: "k1", Want: "w1", Seq: 2, Receipt: json.RawMessage(`{"closing":"\n","doc":"","made":[["a","b"]],"n":-12.5e3,"t":true,"z":null}`)},
			{Path: []string{"x"}, SHA256: "k2", Seq: 1},
		}},
		{Path: "CLAUDE.md", Mode: materialize.ModeBlock, Style: "html", SHA256: "b1", Sep: "\n\n", Seq: 3, Backup: ".actant/backup/x/CLAUDE.md"},
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
		func(s *State) { s.Agents["a"].Entries[1].Seq = 9 },
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
	if got != want || TargetsDigest(targets) != want {
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
