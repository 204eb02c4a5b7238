package lineframe

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseKinds: the kind, id, method and params of lines the relays
// meet (moved from the proxy, its first reader).
func TestParseKinds(t *testing.T) {
	for _, tc := range []struct {
		line   string
		kind   Kind
		id     string
		method string
		params string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":[1,{"b":"}"}]}}` + "\n", KindRequest, `1`, "initialize", `{"a":[1,{"b":"}"}]}`},
		{` { "method" : "session/update" , "params" : null } ` + "\r\n", KindNotification, ``, "session/update", `null`},
		{`{"id":"x\"y","result":{}}`, KindResponse, `"x\"y"`, "", ``},
		{`{"id":0,"error":{"code":-32601,"message":"m"}}`, KindResponse, `0`, "", ``},
		{`{"id":-1.5e+3,"method":"_vendor/x"}`, KindRequest, `-1.5e+3`, "_vendor/x", ``},
		{`{"\u0069d":7,"m\u0065thod":"a\/b"}`, KindRequest, `7`, "a/b", ``},
		{`{"id":1,"method":"a","id":2}`, KindRequest, `2`, "a", ``}, // last wins
		{`{"id":1}`, KindNone, `1`, "", ``},                         // neither request nor response
		{`{"level":"info","msg":"hi"}`, KindNone, ``, "", ``},
		{`{"method":5}`, KindNone, ``, "", ``},
		{`[{"id":1,"method":"a"}]`, KindBatch, ``, "", ``},
		{`[info] starting`, KindNone, ``, "", ``},
		{`Loading model...`, KindNone, ``, "", ``},
		{`{"id":1,"method":"a"} trailing`, KindNone, ``, "", ``},
		{`{"id":1,"method":"a"`, KindNone, ``, "", ``},
		{`{"id":01,"method":"a"}`, KindNone, ``, "", ``},
		{`{"id":1,"method":"a","x":tru}`, KindNone, ``, "", ``},
		{"{\"id\":1,\"method\":\"a\tb\"}", KindNone, ``, "", ``}, // raw control char
		{`{"id":1,"method":"a","x":"\q"}`, KindNone, ``, "", ``},
		{``, KindNone, ``, "", ``},
		{"   \n", KindNone, ``, "", ``},
	} {
		env := Parse([]byte(tc.line))
		if env.Kind != tc.kind || string(env.ID) != tc.id {
			t.Errorf("%q: kind %d id %s, want kind %d id %s", tc.line, env.Kind, env.ID, tc.kind, tc.id)
			continue
		}
		if tc.method != "" && !env.MethodIs(tc.method) {
			t.Errorf("%q: method %s is not %s", tc.line, env.Method, tc.method)
		}
		if got := tc.line[env.Params.Start:env.Params.End]; got != tc.params {
			t.Errorf("%q: params %q, want %q", tc.line, got, tc.params)
		}
	}
}

// TestIDKey: the spellings of one id share a key; different ids do not.
func TestIDKey(t *testing.T) {
	key := func(id string) string {
		k, ok := AppendIDKey(nil, []byte(id))
		if !ok {
			return "<none>"
		}
		return string(k)
	}
	same := [][]string{
		{`1`, `1.0`, `1e0`, `10e-1`},
		{`0`, `-0`, `0.0`},
		{`"a"`, `"\u0061"`},
		{`12345678901234567890`, `1.2345678901234567890e19`},
	}
	for _, group := range same {
		for _, id := range group[1:] {
			if key(id) != key(group[0]) {
				t.Errorf("key(%s) = %q, key(%s) = %q; want equal", id, key(id), group[0], key(group[0]))
			}
		}
	}
	differ := []string{`1`, `"1"`, `0`, `"0"`, `""`, `1.5`, `-1`, `"-1"`}
	seen := map[string]string{}
	for _, id := range differ {
		if prev, dup := seen[key(id)]; dup {
			t.Errorf("ids %s and %s share a key", prev, id)
		}
		seen[key(id)] = id
	}
	if key(`null`) != "<none>" || key(``) != "<none>" {
		t.Error("null or missing ids must not be tracked")
	}
}

// FuzzParseKinds: the scanner accepts exactly what encoding/json accepts as a JSON object
// or array; everything else is classified as noise.
func FuzzParseKinds(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"id":"a","result":[1,2,{"x":null}]}`,
		`[1,"2",{"3":true}]`, `{"a":-0.5e-7}`, `{"a":"\ud83d\ude00"}`, `{`, `{"a":}`, `noise`, `{"a":1,}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env := Parse(b)
		scanned := false
		if i := SkipWS(b, 0); i < len(b) && (b[i] == '{' || b[i] == '[') {
			_, scanned = scanValue(b, i, 0)
			if scanned {
				end, _ := scanValue(b, i, 0)
				scanned = SkipWS(b, end) == len(b)
			}
		}
		isContainer := false
		if i := SkipWS(b, 0); i < len(b) && (b[i] == '{' || b[i] == '[') {
			isContainer = true
		}
		if isContainer && scanned != json.Valid(b) {
			t.Fatalf("scanner says %v, encoding/json says %v for %q", scanned, json.Valid(b), b)
		}
		if env.Kind == KindRequest || env.Kind == KindNotification || env.Kind == KindResponse {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("classified %q as a message but it does not decode: %v", b, err)
			}
			if env.ID != nil && strings.TrimSpace(string(m["id"])) != string(env.ID) {
				t.Fatalf("id %s, encoding/json sees %s", env.ID, m["id"])
			}
		}
	})
}
