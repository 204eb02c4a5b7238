package reconcile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/actctl/actctl/materialize"
)

// encodeCases are states whose encodings must equal encoding/json's:
// every field set and unset, nil and empty containers, strings that need
// escapes (quotes, control characters, U+2028, invalid UTF-8, HTML
// characters that stay unescaped) and receipts to re-indent.
func encodeCases() map[string]*State {
	odd := "q\"b\\s\x01\b\f\n\r\t<>&\u2028\u2029\xff é ☃"
	cases := map[string]*State{
		"sample":           codecSample(),
		"empty":            NewState(),
		"nil agents":       {Version: 1},
		"nil agent":        {Version: 1, Agents: map[string]*AgentState{"x": nil}},
		"nil entries":      {Version: 1, Agents: map[string]*AgentState{"x": {Dir: "/d"}}},
		"odd strings":      {Version: 1, Root: odd, ConfigDigest: odd, LockDigest: odd, Owned: odd, Agents: map[string]*AgentState{odd: {Dir: odd, Entries: []EntryState{{Path: odd, Mode: materialize.Mode(odd), SHA256: odd, Style: odd, Format: odd, Sep: odd, Backup: odd, FileSHA: odd, Dirs: []string{odd, ""}, Keys: []KeyState{{Path: []string{odd}, SHA256: odd, Want: odd}}}}}}},
		"negative version": {Version: -3, Agents: map[string]*AgentState{"a": {Dir: "d", Entries: []EntryState{{Path: "p", Keys: []KeyState{{}}}}}}},
		"empty keys":       {Version: 1, Agents: map[string]*AgentState{"a": {Dir: "d", Entries: []EntryState{{Path: "p", Keys: []KeyState{}, Dirs: []string{}, Alt: []string{"x"}}}}}},
		"empty path":       {Version: 1, Agents: map[string]*AgentState{"a": {Dir: "d", Entries: []EntryState{{Path: "p", Keys: []KeyState{{Path: []string{}, Alt: []string{"y"}}}}}}}},
		"receipts": {Version: 1, Agents: map[string]*AgentState{"a": {Dir: "d", Entries: []EntryState{{Path: "p", Keys: []KeyState{
			{Path: []string{"k"}, Receipt: json.RawMessage(" { \"a\" : [ 1 , { } , [ ] , \"<\\u2028>\" ] , \"b\" : { \"c\" : null } } ")},
			{Path: []string{"k"}, Receipt: json.RawMessage(`"just a string"`)},
			{Path: []string{"k"}, Receipt: json.RawMessage(`[]`)},
			{Path: []string{"k"}, Receipt: json.RawMessage("{\"x\":\"\xff\u2028\"}")},
		}}}}}},
	}
	for i := 0; i < 3; i++ {
		st := codecSample()
		for n := range st.Agents {
			st.Agents[n+strings.Repeat("z", i)] = st.Agents[n]
		}
		cases["sample x"+strings.Repeat("z", i)] = st
	}
	return cases
}

// TestStateEncoderMatchesJSON: state.json (compact) and actant.owned
// (indented) are byte for byte what encoding/json writes, so readers and
// digests of either (package inputs hashes state.json) see no change.
func TestStateEncoderMatchesJSON(t *testing.T) {
	for name, st := range encodeCases() {
		for _, indent := range []bool{false, true} {
			want := encodeStateJSON(st, indent)
			e := stateEncoder{indent: indent}
			if err := e.state(st); err != nil {
				t.Errorf("%s (indent %v): fell back: %v", name, indent, err)
				continue
			}
			if got := append(e.b, '\n'); !bytes.Equal(got, want) {
				t.Errorf("%s (indent %v):\n got %q\nwant %q", name, indent, got, want)
			}
		}
	}
}

// TestStateEncoderInvalidReceipt: a receipt that is not JSON goes to
// encoding/json, which refuses it as before.
func TestStateEncoderInvalidReceipt(t *testing.T) {
	st := NewState()
	st.Agents["a"] = &AgentState{Dir: "d", Entries: []EntryState{{Path: "p", Keys: []KeyState{{Receipt: json.RawMessage(`{"x":`)}}}}}
	e := stateEncoder{}
	if err := e.state(st); err != errRawInvalid {
		t.Fatalf("invalid receipt: err %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("encoding an invalid receipt did not panic")
		}
	}()
	st.Encode()
}

// FuzzStateEncoder compares the encoders on states made of fuzzed strings
// and receipts.
func FuzzStateEncoder(f *testing.F) {
	f.Add("a", "p", "x", []byte(`{"a":1}`), 3)
	f.Add("\u2028", "\xff\"", "\x00<", []byte(` [ {} ] `), -1)
	f.Fuzz(func(t *testing.T, name, path, s string, receipt []byte, seq int) {
		st := NewState()
		st.Root = s
		st.Agents[name] = &AgentState{Dir: s, Entries: []EntryState{
			{Path: path, Mode: materialize.Mode(s), Sep: s, Dirs: []string{s, path}, Claim: seq%5 == 0,
				Keys: []KeyState{{Path: []string{name, s}, SHA256: s, Receipt: receipt}}},
			{Path: s, Exec: seq%2 == 0, Created: seq%3 == 0},
		}}
		for _, indent := range []bool{false, true} {
			e := stateEncoder{indent: indent}
			err := e.state(st)
			if !json.Valid(receipt) && len(receipt) > 0 {
				if err == nil {
					t.Fatalf("invalid receipt %q encoded", receipt)
				}
				continue
			}
			if err != nil {
				t.Fatalf("fell back: %v", err)
			}
			if got, want := append(e.b, '\n'), encodeStateJSON(st, indent); !bytes.Equal(got, want) {
				t.Fatalf("indent %v:\n got %q\nwant %q", indent, got, want)
			}
		}
	})
}

// BenchmarkStateEncode encodes the job's state (compact) and committed
// record (indented).
func BenchmarkStateEncode(b *testing.B) {
	cfg := jobBench(b)
	st, _, err := ReadState(metaPath(cfg.Root, StateFile))
	if err != nil {
		b.Fatal(err)
	}
	for _, indent := range []bool{false, true} {
		b.Run(fmt.Sprintf("indent=%v", indent), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				encodeState(st, indent)
			}
		})
		b.Run(fmt.Sprintf("indent=%v/encoding-json", indent), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				encodeStateJSON(st, indent)
			}
		})
	}
}

// BenchmarkStateDecode decodes the job's state.json.
func BenchmarkStateDecode(b *testing.B) {
	cfg := jobBench(b)
	_, data, err := ReadState(metaPath(cfg.Root, StateFile))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := decodeStateFast(data); err != nil {
			b.Fatal(err)
		}
	}
}
