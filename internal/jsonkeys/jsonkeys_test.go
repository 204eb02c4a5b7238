package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

func mustSet(t *testing.T, c string, path []string, v string) (string, Receipt) {
	t.Helper()
	out, r, err := Set([]byte(c), path, json.RawMessage(v))
	if err != nil {
		t.Fatalf("Set(%q, %v, %s): %v", c, path, v, err)
	}
	return string(out), r
}

func TestSetInsertLayouts(t *testing.T) {
	srv := `{"command":"npx","args":["-y","x"]}`
	tests := []struct {
		name, in string
		path     []string
		want     string
	}{
		{"empty file", "", []string{"mcpServers", "a"},
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"x\"\n      ]\n    }\n  }\n}\n"},
		{"empty object", "{}", []string{"k"},
			"{\n  \"k\": {\n    \"command\": \"npx\",\n    \"args\": [\n      \"-y\",\n      \"x\"\n    ]\n  }\n}"},
		{"empty object with newline", "{\n}\n", []string{"k"},
			"{\n  \"k\": {\n    \"command\": \"npx\",\n    \"args\": [\n      \"-y\",\n      \"x\"\n    ]\n  }\n}\n"},
		{"4 spaces sibling", "{\n    \"other\": 1\n}\n", []string{"mcpServers", "a"},
			"{\n    \"other\": 1,\n    \"mcpServers\": {\n        \"a\": {\n            \"command\": \"npx\",\n            \"args\": [\n                \"-y\",\n                \"x\"\n            ]\n        }\n    }\n}\n"},
		{"tabs existing parent", "{\n\t\"mcpServers\": {\n\t\t\"b\": {}\n\t}\n}", []string{"mcpServers", "a"},
			"{\n\t\"mcpServers\": {\n\t\t\"b\": {},\n\t\t\"a\": {\n\t\t\t\"command\": \"npx\",\n\t\t\t\"args\": [\n\t\t\t\t\"-y\",\n\t\t\t\t\"x\"\n\t\t\t]\n\t\t}\n\t}\n}"},
		{"compact", `{"a":1}`, []string{"mcpServers", "x"}, `{"a":1,"mcpServers":{"x":{"command":"npx","args":["-y","x"]}}}`},
		{"compact with spaces", `{"a": 1}`, []string{"k"}, `{"a": 1, "k": {"command":"npx","args":["-y","x"]}}`},
		{"trailing comma", "{\n  \"a\": 1,\n}", []string{"k"},
			"{\n  \"a\": 1,\n  \"k\": {\n    \"command\": \"npx\",\n    \"args\": [\n      \"-y\",\n      \"x\"\n    ]\n  },\n}"},
		{"crlf", "{\r\n  \"a\": 1\r\n}\r\n", []string{"k"},
			"{\r\n  \"a\": 1,\r\n  \"k\": {\r\n    \"command\": \"npx\",\r\n    \"args\": [\r\n      \"-y\",\r\n      \"x\"\r\n    ]\r\n  }\r\n}\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, r := mustSet(t, tt.in, tt.path, srv)
			if out != tt.want {
				t.Errorf("Set =\n%s\nwant\n%s\n(%q)", out, tt.want, out)
			}
			back, err := Delete([]byte(out), tt.path, r)
			if err != nil || string(back) != tt.in {
				t.Errorf("Delete = %q, %v; want %q", back, err, tt.in)
			}
		})
	}
}

func TestSetReplaceAndRestore(t *testing.T) {
	in := "{\n  // Zed settings\n  \"theme\": \"One\", /* keep */\n  \"permissions\": {\"defaultMode\": \"plan\"},\n  \"z\": [1, 2,],\n}\n"
	out, r := mustSet(t, in, []string{"permissions"}, `{"defaultMode":"acceptEdits","allow":["Bash"]}`)
	if !r.Replaced || r.Old != `{"defaultMode": "plan"}` {
		t.Fatalf("receipt = %+v", r)
	}
	want := "{\n  // Zed settings\n  \"theme\": \"One\", /* keep */\n  \"permissions\": {\n    \"defaultMode\": \"acceptEdits\",\n    \"allow\": [\n      \"Bash\"\n    ]\n  },\n  \"z\": [1, 2,],\n}\n"
	if out != want {
		t.Errorf("out =\n%s\nwant\n%s", out, want)
	}
	back, err := Delete([]byte(out), []string{"permissions"}, r)
	if err != nil || string(back) != in {
		t.Fatalf("restore = %q, %v", back, err)
	}
	// Replacing inside a pretty object pretty-prints at the right depth.
	in2 := "{\n  \"permissions\": {\n    \"defaultMode\": \"plan\"\n  }\n}"
	out2, r2 := mustSet(t, in2, []string{"permissions"}, `{"allow":["a"],"defaultMode":"default"}`)
	want2 := "{\n  \"permissions\": {\n    \"allow\": [\n      \"a\"\n    ],\n    \"defaultMode\": \"default\"\n  }\n}"
	if out2 != want2 {
		t.Errorf("out2 =\n%s\nwant\n%s", out2, want2)
	}
	if back, _ := Delete([]byte(out2), []string{"permissions"}, r2); string(back) != in2 {
		t.Errorf("restore2 = %q", back)
	}
	// Same value again: no change at all.
	out3, r3, err := Set([]byte(out2), []string{"permissions"}, json.RawMessage(`{"defaultMode":"default","allow":["a"]}`))
	if err != nil || string(out3) != out2 || !r3.Replaced {
		t.Errorf("idempotent Set changed content: %q %v", out3, err)
	}
}

func TestSetNestedScalarInExisting(t *testing.T) {
	in := "{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n"
	out, r := mustSet(t, in, []string{"permissions", "defaultMode"}, `"plan"`)
	want := "{\n  \"permissions\": {\n    \"allow\": [],\n    \"defaultMode\": \"plan\"\n  }\n}\n"
	if out != want {
		t.Errorf("out = %q", out)
	}
	if back, err := Delete([]byte(out), []string{"permissions", "defaultMode"}, r); err != nil || string(back) != in {
		t.Errorf("Delete = %q %v", back, err)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		in      string
		path    []string
		wantErr string
	}{
		{`{"a": 1}`, []string{"a", "b"}, "set a.b: a is not an object"},
		{`{"a": {"b": []}}`, []string{"a", "b", "c"}, "a.b is not an object"},
		{`[1]`, []string{"a"}, "not an object"},
		{`{"a": 1, "a": 2}`, []string{"a"}, "duplicate key"},
		{`{"a": `, []string{"a"}, "set a:"},
		{`{}`, nil, "empty key path"},
	}
	for _, tt := range tests {
		_, _, err := Set([]byte(tt.in), tt.path, json.RawMessage(`1`))
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Set(%q, %v) err = %v, want %q", tt.in, tt.path, err, tt.wantErr)
		}
	}
	if _, _, err := Set([]byte(`{}`), []string{"a"}, json.RawMessage(`{bad`)); err == nil {
		t.Error("invalid value accepted")
	}
}

func TestGet(t *testing.T) {
	in := "{\n  // c\n  \"a\": {\"z\": 1.0, \"b\": [true, null, \"<x>\"], /* c */},\n}"
	v, ok, err := Get([]byte(in), []string{"a"})
	if err != nil || !ok || string(v) != `{"b":[true,null,"\u003cx\u003e"],"z":1}` {
		t.Errorf("Get = %s %v %v", v, ok, err)
	}
	if _, ok, err := Get([]byte(in), []string{"a", "q"}); ok || err != nil {
		t.Errorf("missing: %v %v", ok, err)
	}
	if _, ok, err := Get(nil, []string{"a"}); ok || err != nil {
		t.Errorf("blank: %v %v", ok, err)
	}
	if _, _, err := Get([]byte(in), []string{"a", "z", "q"}); err == nil {
		t.Error("path through number: want error")
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		`{"b":1,"a":[1.0,2e0,-0]}`: `{"a":[1,2,0],"b":1}`,
		` "s" `:                    `"s"`,
		`123456789012345678`:       `123456789012345678`,
	} {
		got, err := Canonical([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("Canonical(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := Canonical([]byte(`1 2`)); err == nil {
		t.Error("trailing data accepted")
	}
}

func TestIsEmptyObject(t *testing.T) {
	for in, want := range map[string]bool{
		"{}": true, "{}\n": true, " {\n\n}\n": true, "{\"a\":1}": false, "{/*c*/}": false, "": false, "[]": false, "// c\n{}": false,
	} {
		if got := IsEmptyObject([]byte(in)); got != want {
			t.Errorf("IsEmptyObject(%q) = %v", in, got)
		}
	}
}

func TestDeleteKeepsUserChanges(t *testing.T) {
	in := "{\n  \"other\": true\n}\n"
	p := []string{"mcpServers", "a"}
	out, r := mustSet(t, in, p, `{"command":"x"}`)
	// The user adds a sibling server next to ours and a key after it.
	edited := strings.Replace(out, "\"command\": \"x\"\n    }", "\"command\": \"x\"\n    },\n    \"mine\": {}", 1)
	edited = strings.Replace(edited, "  }\n}\n", "  },\n  \"last\": 1\n}\n", 1)
	got, err := Delete([]byte(edited), p, r)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"other\": true,\n  \"mcpServers\": {\n    \"mine\": {}\n  },\n  \"last\": 1\n}\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Absent key: unchanged, no error.
	again, err := Delete(got, p, r)
	if err != nil || string(again) != string(got) {
		t.Errorf("second Delete changed content: %v", err)
	}
}

func TestDeleteKeepsComments(t *testing.T) {
	in := "{\n  \"a\": 1 // one\n}"
	out, r := mustSet(t, in, []string{"b"}, `2`)
	if back, err := Delete([]byte(out), []string{"b"}, r); err != nil || string(back) != in {
		t.Fatalf("Delete = %q %v", back, err)
	}
	// A user comment put before our member survives its removal.
	edited := strings.Replace(out, "\"b\"", "// user note\n  \"b\"", 1)
	back, err := Delete([]byte(edited), []string{"b"}, r)
	if err != nil || !strings.Contains(string(back), "// user note") {
		t.Fatalf("comment lost: %q %v", back, err)
	}
	if _, err := hujson.Parse(back); err != nil {
		t.Fatal(err)
	}
}

func TestMultipleKeysLIFO(t *testing.T) {
	for _, in := range []string{"", "{}", "{\n  \"x\": 1\n}\n", `{"x":1}`} {
		c := in
		var receipts []Receipt
		paths := [][]string{{"mcpServers", "a"}, {"mcpServers", "b"}, {"permissions", "defaultMode"}, {"permissions", "allow"}}
		for _, p := range paths {
			out, r := mustSet(t, c, p, `{"k":[1,{"z":null}]}`)
			c = out
			receipts = append(receipts, r)
		}
		for i := len(paths) - 1; i >= 0; i-- {
			out, err := Delete([]byte(c), paths[i], receipts[i])
			if err != nil {
				t.Fatal(err)
			}
			c = string(out)
		}
		if c != in {
			t.Errorf("LIFO round trip of %q gave %q", in, c)
		}
	}
}

// flatten lists every leaf of a standardized document in document order as
// "path=value", so tests can compare keys, order and values.
func flatten(t *testing.T, content []byte) []string {
	t.Helper()
	if isBlank(content) {
		return nil
	}
	v, err := hujson.Parse(content)
	if err != nil {
		t.Fatalf("parse %q: %v", content, err)
	}
	var out []string
	var rec func(prefix string, v *hujson.Value)
	rec = func(prefix string, v *hujson.Value) {
		switch x := v.Value.(type) {
		case *hujson.Object:
			if len(x.Members) == 0 {
				out = append(out, prefix+"={}")
			}
			for i := range x.Members {
				rec(prefix+"/"+x.Members[i].Name.Value.(hujson.Literal).String(), &x.Members[i].Value)
			}
		default:
			c := v.Clone()
			c.Minimize()
			out = append(out, prefix+"="+string(c.Pack()))
		}
	}
	rec("", &v)
	return out
}

// checkSetDelete verifies the package's key properties for one input.
func checkSetDelete(t *testing.T, content []byte, path []string, value []byte) {
	if len(path) == 0 {
		return
	}
	want, err := Canonical(value)
	if err != nil {
		return
	}
	if !isBlank(content) {
		if _, err := parse(content); err != nil {
			return
		}
	}
	_, had, gerr := Get(content, path)
	out, r, err := Set(content, path, value)
	if err != nil {
		if gerr == nil && !strings.Contains(err.Error(), "not an object") && !strings.Contains(err.Error(), "duplicate key") && !strings.Contains(err.Error(), "UTF-8") {
			t.Fatalf("Set(%q, %q, %s): %v", content, path, value, err)
		}
		return
	}
	if gerr != nil {
		t.Fatalf("Get failed (%v) but Set succeeded", gerr)
	}
	std, err := hujson.Standardize(bytes.Clone(out))
	if err != nil || !json.Valid(std) {
		t.Fatalf("Set output does not parse as JSON: %q (%v)", out, err)
	}
	got, ok, err := Get(out, path)
	if err != nil || !ok || !bytes.Equal(got, want) {
		t.Fatalf("Get(Set) = %s %v %v, want %s", got, ok, err, want)
	}
	if had != r.Replaced {
		t.Fatalf("Replaced = %v but key existed = %v", r.Replaced, had)
	}
	// Other keys keep their order and values.
	prefix := "/" + strings.Join(path[:len(path)-r.Created], "/")
	var others []string
	for _, e := range flatten(t, out) {
		if !strings.HasPrefix(e, prefix+"/") && !strings.HasPrefix(e, prefix+"=") {
			others = append(others, e)
		}
	}
	var before []string
	for _, e := range flatten(t, content) {
		if !strings.HasPrefix(e, prefix+"/") && !strings.HasPrefix(e, prefix+"=") {
			before = append(before, e)
		}
	}
	if len(path)-r.Created == 1 || !had {
		// The parent of the first created key may have been "{}".
		before = slices.DeleteFunc(before, func(e string) bool {
			return e == "/"+strings.Join(path[:len(path)-r.Created-1], "/")+"={}" || e == "={}"
		})
		others = slices.DeleteFunc(others, func(e string) bool {
			return e == "/"+strings.Join(path[:len(path)-r.Created-1], "/")+"={}" || e == "={}"
		})
	}
	if !slices.Equal(before, others) {
		t.Fatalf("other keys changed:\nbefore %q\nafter  %q", before, others)
	}
	// The inverse.
	back, err := Delete(out, path, r)
	if err != nil || !bytes.Equal(back, content) {
		t.Fatalf("Delete(Set(%q, %q, %s)) =\n%q (%v)\nSet gave %q", content, path, value, back, err, out)
	}
	// Setting the same value again changes nothing.
	again, _, err := Set(out, path, value)
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("second Set changed output: %q -> %q (%v)", out, again, err)
	}
}

var shapes = []string{
	"",
	"\n",
	"{}",
	"{}\n",
	"{\n}\n",
	"{ }",
	`{"a":1}`,
	`{"a": 1, "b": [1, 2]}`,
	"{\n  \"a\": 1\n}\n",
	"{\n  \"a\": 1\n}",
	"{\n    \"a\": {\n        \"b\": true\n    }\n}\n",
	"{\n\t\"a\": {\n\t\t\"b\": true\n\t}\n}\n",
	"{\r\n  \"mcpServers\": {\r\n    \"x\": {}\r\n  }\r\n}\r\n",
	"{\n  \"mcpServers\": {}\n}\n",
	"{\n  \"mcpServers\": {\n  }\n}\n",
	"// Zed settings\n{\n  \"theme\": \"x\", // trailing\n  /* block */ \"mcpServers\": {\n    \"y\": {\"command\": \"z\"},\n  },\n}\n",
	"{\n  \"a\": 1,\n  // last comment\n}\n",
	"{\"mcpServers\":{\"x\":{\"command\":\"a\"}},\"permissions\":{\"allow\":[]}}",
	"  {\"a\" : 1 , \"b\" : {} }  ",
}

func TestPropertiesTable(t *testing.T) {
	paths := [][]string{{"mcpServers", "new"}, {"mcpServers", "x"}, {"a"}, {"permissions", "defaultMode"}, {"a", "b"}, {"q", "r", "s"}, {"mcpServers"}}
	values := []string{`1`, `"s"`, `{}`, `[]`, `{"command":"npx","args":["-y","@x/y"],"env":{"K":"<v>"}}`, `null`, `[{"a":{}}]`}
	for _, c := range shapes {
		for _, p := range paths {
			for _, v := range values {
				t.Run(fmt.Sprintf("%q/%v/%s", c, p, v), func(t *testing.T) {
					checkSetDelete(t, []byte(c), p, []byte(v))
				})
			}
		}
	}
}

func FuzzSetDelete(f *testing.F) {
	for i, s := range shapes {
		f.Add([]byte(s), "mcpServers/new", []byte(`{"command":"npx","args":["-y"]}`))
		f.Add([]byte(s), "a", []byte(fmt.Sprint(i)))
		f.Add([]byte(s), "permissions/defaultMode", []byte(`"plan"`))
	}
	f.Fuzz(func(t *testing.T, content []byte, path string, value []byte) {
		checkSetDelete(t, content, strings.Split(path, "/"), value)
	})
}

// FuzzNoPanic: arbitrary bytes never panic any entry point.
func FuzzNoPanic(f *testing.F) {
	for _, s := range shapes {
		f.Add([]byte(s), "a/b")
	}
	f.Fuzz(func(t *testing.T, content []byte, path string) {
		p := strings.Split(path, "/")
		_, _, _ = Get(content, p)
		out, r, err := Set(content, p, json.RawMessage(`{"x":[1]}`))
		if err == nil {
			_, _ = Delete(out, p, r)
		}
		_, _ = Delete(content, p, Receipt{Created: 3, Closing: "\n"})
		_ = IsEmptyObject(content)
	})
}
