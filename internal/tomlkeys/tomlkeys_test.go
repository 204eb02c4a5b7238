package tomlkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/pelletier/go-toml/v2"
)

func mustSet(t *testing.T, c string, path []string, v string) (string, Receipt) {
	t.Helper()
	out, r, err := Set([]byte(c), path, json.RawMessage(v))
	if err != nil {
		t.Fatalf("Set(%q, %v, %s): %v", c, path, v, err)
	}
	return string(out), r
}

const server = `{"command":"npx","args":["-y","@x/server"],"env":{"API_KEY":"k","a.b":"q\"uote"},"startup_timeout_sec":10.5}`

func TestSetLayouts(t *testing.T) {
	tests := []struct {
		name, in string
		path     []string
		value    string
		want     string
	}{
		{"server into empty", "", []string{"mcp_servers", "docs"}, server,
			"[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"@x/server\"]\nenv = { API_KEY = \"k\", \"a.b\" = \"q\\\"uote\" }\nstartup_timeout_sec = 10.5\n"},
		{"server after existing", "model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n", []string{"mcp_servers", "docs"}, `{"command":"y"}`,
			"model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n\n[mcp_servers.docs]\ncommand = \"y\"\n"},
		{"server no final newline", "model = \"o3\"", []string{"mcp_servers", "docs"}, `{"command":"y"}`,
			"model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"y\"\n"},
		{"top-level key before first table", "# my config\nmodel = \"o3\"\n\n# servers\n[mcp_servers.a]\ncommand = \"x\"\n", []string{"sandbox_mode"}, `"workspace-write"`,
			"# my config\nmodel = \"o3\"\nsandbox_mode = \"workspace-write\"\n\n# servers\n[mcp_servers.a]\ncommand = \"x\"\n"},
		{"top-level key no root keys", "# header\n\n# servers\n[mcp_servers.a]\ncommand = \"x\"\n", []string{"approval_policy"}, `"on-request"`,
			"# header\n\napproval_policy = \"on-request\"\n# servers\n[mcp_servers.a]\ncommand = \"x\"\n"},
		{"top-level key only table", "[t]\na = 1\n", []string{"sandbox_mode"}, `"read-only"`,
			"sandbox_mode = \"read-only\"\n[t]\na = 1\n"},
		{"top-level key empty file", "", []string{"sandbox_mode"}, `"read-only"`, "sandbox_mode = \"read-only\"\n"},
		{"top-level key no newline", "a = 1", []string{"sandbox_mode"}, `"read-only"`, "a = 1\nsandbox_mode = \"read-only\""},
		{"key in missing table", "sandbox_mode = \"workspace-write\"\n", []string{"sandbox_workspace_write", "network_access"}, `true`,
			"sandbox_mode = \"workspace-write\"\n\n[sandbox_workspace_write]\nnetwork_access = true\n"},
		{"key in existing table", "[sandbox_workspace_write]\nwritable_roots = [\"/tmp\"]\n# trailing comment\n\n[other]\n", []string{"sandbox_workspace_write", "network_access"}, `false`,
			"[sandbox_workspace_write]\nwritable_roots = [\"/tmp\"]\nnetwork_access = false\n# trailing comment\n\n[other]\n"},
		{"key in empty table at EOF", "[sandbox_workspace_write]", []string{"sandbox_workspace_write", "network_access"}, `true`,
			"[sandbox_workspace_write]\nnetwork_access = true"},
		{"key in dotted table", "sandbox_workspace_write.writable_roots = []\n[x]\n", []string{"sandbox_workspace_write", "network_access"}, `true`,
			"sandbox_workspace_write.writable_roots = []\nsandbox_workspace_write.network_access = true\n[x]\n"},
		{"key in implicit table", "[a.b]\nc = 1\n", []string{"a", "k"}, `1`,
			"[a.b]\nc = 1\n\n[a]\nk = 1\n"},
		{"crlf", "model = \"o3\"\r\n", []string{"mcp_servers", "d"}, `{"command":"c"}`,
			"model = \"o3\"\r\n\r\n[mcp_servers.d]\r\ncommand = \"c\"\r\n"},
		{"quoted keys", "", []string{"mcp_servers", "my server"}, `{"a b":[1,2.5,"x",true,[],{}]}`,
			"[mcp_servers.\"my server\"]\n\"a b\" = [1, 2.5, \"x\", true, [], {}]\n"},
		{"big integer becomes float", "", []string{"n"}, `123456789012345678901234567890`, "n = 1.2345678901234568e+29\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, r := mustSet(t, tt.in, tt.path, tt.value)
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

func TestReplaceAndRestore(t *testing.T) {
	in := "# Codex\nsandbox_mode = 'read-only' # set by me\napproval_policy = \"never\"\n\n[mcp_servers.docs] # mine\ncommand = \"old\"\nargs = [\n  \"a\", # first\n]\n\n[mcp_servers.docs.env]\nK = \"v\"\n\n[profiles.x]\nmodel = \"m\"\n"
	out, r := mustSet(t, in, []string{"sandbox_mode"}, `"workspace-write"`)
	if !r.Replaced || r.Old != "'read-only'" {
		t.Fatalf("receipt %+v", r)
	}
	if want := strings.Replace(in, "'read-only'", "\"workspace-write\"", 1); out != want {
		t.Errorf("out = %q", out)
	}
	if back, err := Delete([]byte(out), []string{"sandbox_mode"}, r); err != nil || string(back) != in {
		t.Errorf("restore = %q %v", back, err)
	}
	out, r = mustSet(t, in, []string{"mcp_servers", "docs"}, `{"command":"new"}`)
	want := "# Codex\nsandbox_mode = 'read-only' # set by me\napproval_policy = \"never\"\n\n[mcp_servers.docs]\ncommand = \"new\"\n\n[profiles.x]\nmodel = \"m\"\n"
	if out != want {
		t.Errorf("section replace =\n%s\nwant\n%s", out, want)
	}
	if back, err := Delete([]byte(out), []string{"mcp_servers", "docs"}, r); err != nil || string(back) != in {
		t.Errorf("section restore = %q %v", back, err)
	}
	// Equal value: nothing changes.
	same, r2, err := Set([]byte(in), []string{"approval_policy"}, json.RawMessage(`"never"`))
	if err != nil || string(same) != in || !r2.Replaced {
		t.Errorf("idempotent Set changed content: %v", err)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		in      string
		path    []string
		value   string
		wantErr string
	}{
		{"a = 1\n", []string{"a", "b"}, `1`, "set a.b: a is not a table"},
		{"a = { b = 1 }\n", []string{"a", "c"}, `1`, "inline"},
		{"a = { b = 1 }\n", []string{"a", "b"}, `2`, "inline"},
		{"[[a]]\nb = 1\n", []string{"a", "b"}, `1`, "a is not a table"},
		{"a.b = 1\na.c = 2\n", []string{"a"}, `{"b":1}`, "edit it by hand"},
		{"[a]\nx = 1\n[b]\n[a.c]\n", []string{"a"}, `{}`, "continued elsewhere"},
		{"[a]\nx = 1\n", []string{"a"}, `1`, "non-table"},
		{"", []string{"a"}, `null`, "null"},
		{"", []string{"a"}, `{"b":[1,null]}`, "null"},
		{"a = ", []string{"a"}, `1`, "line 1"},
		{"", []string{"a"}, `{"x":1,"x":2}`, "duplicate"},
		{"", nil, `1`, "empty key path"},
	}
	for _, tt := range tests {
		_, _, err := Set([]byte(tt.in), tt.path, json.RawMessage(tt.value))
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Set(%q, %v, %s) err = %v, want %q", tt.in, tt.path, tt.value, err, tt.wantErr)
		}
	}
}

func TestGet(t *testing.T) {
	in := "x = 1.0\n[mcp_servers.a]\ncommand = \"c\"\nargs = ['-y']\nenv = { Z = \"1\", A = \"2\" }\nwhen = 1979-05-27\n"
	v, ok, err := Get([]byte(in), []string{"mcp_servers", "a"})
	if err != nil || !ok || string(v) != `{"args":["-y"],"command":"c","env":{"A":"2","Z":"1"},"when":"1979-05-27"}` {
		t.Errorf("Get = %s %v %v", v, ok, err)
	}
	if v, _, _ := Get([]byte(in), []string{"x"}); string(v) != "1" {
		t.Errorf("x = %s", v)
	}
	if _, ok, err := Get([]byte(in), []string{"nope", "x"}); ok || err != nil {
		t.Errorf("missing: %v %v", ok, err)
	}
	if _, _, err := Get([]byte("x = nan\n"), []string{"x"}); err == nil {
		t.Error("nan: want error")
	}
}

func TestDeleteUserEdits(t *testing.T) {
	in := "model = \"o3\"\n"
	p := []string{"mcp_servers", "docs"}
	out, r := mustSet(t, in, p, `{"command":"c"}`)
	edited := out + "\n[mcp_servers.mine]\ncommand = \"m\"\n"
	edited = strings.Replace(edited, "model = \"o3\"\n", "model = \"o4\"\nother = 1\n", 1)
	got, err := Delete([]byte(edited), p, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "model = \"o4\"\nother = 1\n\n[mcp_servers.mine]\ncommand = \"m\"\n"; string(got) != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Key in a created section, with a user key added to that section:
	// the header stays.
	out, r = mustSet(t, in, []string{"sandbox_workspace_write", "network_access"}, `true`)
	edited = out + "writable_roots = []\n"
	got, err = Delete([]byte(edited), []string{"sandbox_workspace_write", "network_access"}, r)
	if err != nil || string(got) != in+"\n[sandbox_workspace_write]\nwritable_roots = []\n" {
		t.Errorf("got %q %v", got, err)
	}
	// Absent key: unchanged.
	if again, err := Delete(got, []string{"sandbox_workspace_write", "network_access"}, r); err != nil || !bytes.Equal(again, got) {
		t.Errorf("second delete: %q %v", again, err)
	}
}

func TestCodexPresetSequence(t *testing.T) {
	for _, in := range []string{"", "model = \"o3\"\n", "# c\n[mcp_servers.x]\ncommand = \"y\"", "[sandbox_workspace_write]\nwritable_roots = []\n"} {
		type step struct {
			path []string
			v    string
		}
		steps := []step{
			{[]string{"sandbox_mode"}, `"workspace-write"`},
			{[]string{"approval_policy"}, `"on-request"`},
			{[]string{"sandbox_workspace_write", "network_access"}, `false`},
			{[]string{"mcp_servers", "a"}, server},
			{[]string{"mcp_servers", "b"}, `{"url":"http://x"}`},
		}
		c := in
		var rs []Receipt
		for _, s := range steps {
			out, r := mustSet(t, c, s.path, s.v)
			c = out
			rs = append(rs, r)
		}
		if err := toml.Unmarshal([]byte(c), new(map[string]any)); err != nil {
			t.Fatalf("result invalid: %v\n%s", err, c)
		}
		for i := len(steps) - 1; i >= 0; i-- {
			out, err := Delete([]byte(c), steps[i].path, rs[i])
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

func TestIsEmpty(t *testing.T) {
	for in, want := range map[string]bool{"": true, " \n\r\n": true, "# c\n": false, "a = 1": false} {
		if IsEmpty([]byte(in)) != want {
			t.Errorf("IsEmpty(%q) != %v", in, want)
		}
	}
}

// checkSetDelete verifies the key properties for one input.
func checkSetDelete(t *testing.T, content []byte, path []string, value []byte) {
	if len(path) == 0 {
		return
	}
	want, err := jsonkeys.Canonical(value)
	if err != nil {
		return
	}
	before := map[string]any{}
	if toml.Unmarshal(content, &before) != nil {
		return
	}
	if _, err := parseModel(content); err != nil {
		t.Fatalf("go-toml decodes %q but the model parser fails: %v", content, err)
	}
	_, had, gerr := Get(content, path)
	out, r, err := Set(content, path, value)
	if err != nil {
		if strings.Contains(err.Error(), "internal error") {
			t.Fatalf("Set(%q, %q, %s): %v", content, path, value, err)
		}
		return
	}
	if gerr != nil {
		t.Fatalf("Get failed (%v) but Set succeeded", gerr)
	}
	// Set verifies parse, read-back and other keys itself; re-check read-back.
	got, ok, err := Get(out, path)
	if err != nil || !ok || !bytes.Equal(got, want) {
		t.Fatalf("Get(Set) = %s %v %v, want %s", got, ok, err, want)
	}
	if had != r.Replaced {
		t.Fatalf("Replaced = %v, key existed = %v", r.Replaced, had)
	}
	back, err := Delete(out, path, r)
	if err != nil || !bytes.Equal(back, content) {
		t.Fatalf("Delete(Set(%q, %q, %s)) =\n%q (%v)\nSet gave %q", content, path, value, back, err, out)
	}
	again, _, err := Set(out, path, value)
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("second Set changed output: %q -> %q (%v)", out, again, err)
	}
}

var shapes = []string{
	"",
	"\n",
	"# only a comment",
	"# only a comment\n",
	"model = \"o3\"",
	"model = \"o3\"\n",
	"model = \"o3\"\r\nsandbox_mode = \"read-only\"\r\n",
	"sandbox_mode = \"read-only\"\napproval_policy = \"never\"\n",
	"[mcp_servers.x]\ncommand = \"a\"\n",
	"[mcp_servers.x]\ncommand = \"a\"",
	"# top\n\n# about x\n[mcp_servers.x]\ncommand = \"a\"\nargs = [\n  \"1\",\n]\n\n[mcp_servers.x.env]\nA = \"b\"\n",
	"[sandbox_workspace_write]\nnetwork_access = false\n",
	"[sandbox_workspace_write]\n",
	"sandbox_workspace_write.network_access = true\n",
	"mcp_servers.y.command = \"z\"\n",
	"[a]\n[b]\n",
	"[[profiles]]\nname = \"x\"\n",
	"s = \"\"\"\nmulti\nline\n\"\"\"\n[t]\nk = 'v' # c\n",
	"x = 1 # trailing\n\n\n",
	"[mcp_servers]\nx = { command = \"a\" }\n",
}

func TestPropertiesTable(t *testing.T) {
	paths := [][]string{{"mcp_servers", "new"}, {"mcp_servers", "x"}, {"sandbox_mode"}, {"sandbox_workspace_write", "network_access"}, {"model"}, {"q", "r", "s"}, {"mcp_servers", "x", "command"}, {"t", "k"}}
	values := []string{`1`, `"s"`, `true`, `{}`, `[]`, `2.5`, server, `[{"a":{"b":[1]}}]`}
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
		f.Add([]byte(s), "mcp_servers/new", []byte(server))
		f.Add([]byte(s), "sandbox_mode", []byte(fmt.Sprintf(`"m%d"`, i)))
		f.Add([]byte(s), "sandbox_workspace_write/network_access", []byte(`true`))
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
		_, _ = Delete(content, p, Receipt{Section: true, Sep: "\n"})
		_ = IsEmpty(content)
	})
}
