package proxy

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseEnvelope(t *testing.T) {
	for _, tc := range []struct {
		line   string
		kind   msgKind
		id     string
		method string
		params string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":[1,{"b":"}"}]}}` + "\n", kindRequest, `1`, "initialize", `{"a":[1,{"b":"}"}]}`},
		{` { "method" : "session/update" , "params" : null } ` + "\r\n", kindNotification, ``, "session/update", `null`},
		{`{"id":"x\"y","result":{}}`, kindResponse, `"x\"y"`, "", ``},
		{`{"id":0,"error":{"code":-32601,"message":"m"}}`, kindResponse, `0`, "", ``},
		{`{"id":-1.5e+3,"method":"_vendor/x"}`, kindRequest, `-1.5e+3`, "_vendor/x", ``},
		{`{"\u0069d":7,"m\u0065thod":"a\/b"}`, kindRequest, `7`, "a/b", ``},
		{`{"id":1,"method":"a","id":2}`, kindRequest, `2`, "a", ``}, // last wins
		{`{"id":1}`, kindNone, `1`, "", ``},                         // neither request nor response
		{`{"level":"info","msg":"hi"}`, kindNone, ``, "", ``},
		{`{"method":5}`, kindNone, ``, "", ``},
		{`[{"id":1,"method":"a"}]`, kindBatch, ``, "", ``},
		{`[info] starting`, kindNone, ``, "", ``},
		{`Loading model...`, kindNone, ``, "", ``},
		{`{"id":1,"method":"a"} trailing`, kindNone, ``, "", ``},
		{`{"id":1,"method":"a"`, kindNone, ``, "", ``},
		{`{"id":01,"method":"a"}`, kindNone, ``, "", ``},
		{`{"id":1,"method":"a","x":tru}`, kindNone, ``, "", ``},
		{"{\"id\":1,\"method\":\"a\tb\"}", kindNone, ``, "", ``}, // raw control char
		{`{"id":1,"method":"a","x":"\q"}`, kindNone, ``, "", ``},
		{``, kindNone, ``, "", ``},
		{"   \n", kindNone, ``, "", ``},
	} {
		env := parseEnvelope([]byte(tc.line))
		if env.kind != tc.kind || string(env.id) != tc.id {
			t.Errorf("%q: kind %d id %s, want kind %d id %s", tc.line, env.kind, env.id, tc.kind, tc.id)
			continue
		}
		if tc.method != "" && !env.methodIs(tc.method) {
			t.Errorf("%q: method %s is not %s", tc.line, env.method, tc.method)
		}
		if got := tc.line[env.params.start:env.params.end]; got != tc.params {
			t.Errorf("%q: params %q, want %q", tc.line, got, tc.params)
		}
	}
}

func TestIDKey(t *testing.T) {
	key := func(id string) string {
		k, ok := appendIDKey(nil, []byte(id))
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

// The scanner accepts exactly what encoding/json accepts as a JSON object
// or array; everything else is classified as noise.
func FuzzParseEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"id":"a","result":[1,2,{"x":null}]}`,
		`[1,"2",{"3":true}]`, `{"a":-0.5e-7}`, `{"a":"\ud83d\ude00"}`, `{`, `{"a":}`, `noise`, `{"a":1,}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env := parseEnvelope(b)
		scanned := false
		if i := skipWS(b, 0); i < len(b) && (b[i] == '{' || b[i] == '[') {
			_, scanned = scanValue(b, i, 0)
			if scanned {
				end, _ := scanValue(b, i, 0)
				scanned = skipWS(b, end) == len(b)
			}
		}
		isContainer := false
		if i := skipWS(b, 0); i < len(b) && (b[i] == '{' || b[i] == '[') {
			isContainer = true
		}
		if isContainer && scanned != json.Valid(b) {
			t.Fatalf("scanner says %v, encoding/json says %v for %q", scanned, json.Valid(b), b)
		}
		if env.kind == kindRequest || env.kind == kindNotification || env.kind == kindResponse {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("classified %q as a message but it does not decode: %v", b, err)
			}
			if env.id != nil && strings.TrimSpace(string(m["id"])) != string(env.id) {
				t.Fatalf("id %s, encoding/json sees %s", env.id, m["id"])
			}
		}
	})
}
