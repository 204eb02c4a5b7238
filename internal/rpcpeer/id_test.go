package rpcpeer

import (
	"bytes"
	"testing"

	"github.com/actctl/actctl/internal/lineframe"
)

// TestWithID: only the bytes of the top-level id's value change (the
// last id, as encoding/json reads it); a line with no id, or that is not
// an object, is refused.
func TestWithID(t *testing.T) {
	for _, tc := range []struct{ line, id, want, err string }{
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{"id":2}}`, `"x-1"`, `{"jsonrpc":"2.0","id":"x-1","method":"m","params":{"id":2}}`, ""},
		{`{ "id" :  "a\u0041" , "result":{}}`, `7`, `{ "id" :  7 , "result":{}}`, ""},
		{`{"id":1,"id":2,"result":null}`, `3`, `{"id":1,"id":3,"result":null}`, ""},
		{`{"method":"m"}`, `1`, "", "no id"},
		{`[1]`, `1`, "", "not a JSON object"},
		{`{"id":1`, `1`, "", "not a JSON object"},
		{`{"id":1} x`, `1`, "", "not a JSON object"},
	} {
		got, err := WithID([]byte(tc.line), []byte(tc.id))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("WithID(%s) = %s, %v; want error %q", tc.line, got, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("WithID(%s, %s) = %s, %v; want %s", tc.line, tc.id, got, err, tc.want)
		}
	}
}

// FuzzWithID: a rewritten line is the same message with the new id, and
// the bytes before and after the id are the original's.
func FuzzWithID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`), []byte(`"actctl-lease-1"`))
	f.Add([]byte(`{"id":"a","id":[1,{"id":2}],"result":{"id":3}}`), []byte(`-0.5e3`))
	f.Add([]byte(` {"id" : null} `), []byte(`"\u00e9"`))
	f.Fuzz(func(t *testing.T, line, id []byte) {
		if e := lineframe.Parse(id); !e.Valid || e.Kind != lineframe.KindNone || bytes.ContainsAny(id, " \t\r\n") {
			return // ids are single compact scalars or structures
		}
		s, err := idSpan(line)
		out, err2 := WithID(line, id)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("idSpan and WithID disagree: %v, %v", err, err2)
		}
		if err != nil {
			return
		}
		if !bytes.HasPrefix(out, line[:s.Start]) || !bytes.HasSuffix(out, line[s.End:]) {
			t.Fatalf("WithID(%q, %q) = %q: changed bytes outside the id", line, id, out)
		}
		if e := lineframe.Parse(out); !e.Valid || !bytes.Equal(e.ID, id) {
			t.Fatalf("WithID(%q, %q) = %q: parses with id %q (valid %v)", line, id, out, e.ID, e.Valid)
		}
	})
}
