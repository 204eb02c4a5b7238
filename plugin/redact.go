package plugin

import (
	"bytes"
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// DefaultReplacement is what a redact plugin's match becomes when it
// names no replacement.
const DefaultReplacement = "[REDACTED]"

// redactString is s with st's patterns replaced.
func (st *step) redactString(s string) string {
	repl := st.p.Replacement
	if repl == "" {
		repl = DefaultReplacement
	}
	for _, re := range st.re {
		s = re.ReplaceAllLiteralString(s, repl)
	}
	return s
}

// redactBlocks is the prompt with st's patterns replaced in its text and
// its embedded text resources.
func (st *step) redactBlocks(blocks []acp.ContentBlock) []acp.ContentBlock {
	out := make([]acp.ContentBlock, len(blocks))
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			t := *b.Text
			t.Text = st.redactString(t.Text)
			b.Text = &t
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := *b.Resource
			tr := *r.Resource.TextResourceContents
			tr.Text = st.redactString(tr.Text)
			r.Resource.TextResourceContents = &tr
			b.Resource = &r
		}
		out[i] = b
	}
	return out
}

// keptKeys are the members of an update a redact plugin never changes:
// they route it or name its kind.
var keptKeys = map[string]bool{"sessionId": true, "sessionUpdate": true, "toolCallId": true, "type": true, "status": true, "kind": true}

// redactValue replaces st's patterns in every string of a decoded JSON
// value but the members of keptKeys, in place; it returns the value.
func (st *step) redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return st.redactString(x)
	case map[string]any:
		for k, e := range x {
			if !keptKeys[k] {
				x[k] = st.redactValue(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = st.redactValue(e)
		}
	}
	return v
}

// RedactLine is a JSON-RPC line as a log records it (docs/plugins.md,
// "What the logs record"): the Set's redact patterns replaced in every
// string of its params, result and error but the members that route it
// (keptKeys), re-encoded only when one matched (line itself when none
// did, or the Set has no redact plugin); a line that is not a JSON
// object has them replaced as text.
func (s *Set) RedactLine(line []byte) []byte {
	if s == nil || len(s.redact) == 0 {
		return line
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber() // numbers as they were written
	if d.Decode(&m) != nil {
		return []byte(s.Redact(string(line))) // not an object: as text
	}
	before := encode(m)
	for _, k := range []string{"params", "result", "error"} {
		if v, ok := m[k]; ok {
			for _, st := range s.redact {
				v = st.redactValue(v)
			}
			m[k] = v
		}
	}
	if after := encode(m); !bytes.Equal(after, before) {
		return after
	}
	return line
}
