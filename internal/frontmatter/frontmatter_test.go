package frontmatter

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func mustSplit(t *testing.T, text string) (*Doc, string) {
	t.Helper()
	d, body, err := Split(text)
	if err != nil {
		t.Fatalf("Split(%q): %v", text, err)
	}
	return d, body
}

// TestSplitReadsYAML covers what the former line-based readers got wrong:
// folded and literal block scalars, YAML quoting, nested fields.
func TestSplitReadsYAML(t *testing.T) {
	text := "---\nname: x\ndescription: >-\n  Folded text\n  on two lines.\nlicense: 'It''s MIT'\nmetadata:\n  author: me\n---\n\n# Body\n"
	d, body := mustSplit(t, text)
	if body != "# Body\n" {
		t.Errorf("body = %q", body)
	}
	for key, want := range map[string]string{"description": "Folded text on two lines.", "license": "It's MIT", "name": "x"} {
		if got, ok, err := d.Text(key); err != nil || !ok || got != want {
			t.Errorf("%s = %q, %v, %v; want %q", key, got, ok, err, want)
		}
	}
	if _, _, err := d.Text("metadata"); err == nil || !strings.Contains(err.Error(), "line 7") {
		t.Errorf("metadata as text: err = %v, want line 7", err)
	}
	if got := strings.Join(d.Keys(), ","); got != "name,description,license,metadata" {
		t.Errorf("keys = %s", got)
	}
}

func TestSplitNoFrontmatter(t *testing.T) {
	for _, text := range []string{"", "# Title\n---\n", "--- \nnot a fence\n", "----\n"} {
		d, body := mustSplit(t, text)
		if d != nil || body != text {
			t.Errorf("Split(%q) = %v, %q", text, d, body)
		}
	}
	d, body := mustSplit(t, "---\n---\nbody")
	if d == nil || len(d.Keys()) != 0 || body != "body" {
		t.Errorf("empty frontmatter: %v %q", d, body)
	}
	d, body = mustSplit(t, "---\r\nname: x\r\n---\r\n\r\nbody\r\n")
	if v, _, _ := d.Text("name"); v != "x" || body != "body\r\n" {
		t.Errorf("CRLF: name %q body %q", v, body)
	}
}

// TestSplitErrors: invalid frontmatter is reported at its line in the
// whole file (the opening fence is line 1).
func TestSplitErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"---\nname: x\ndescription: a: b\n---\n", "line 3: invalid YAML: mapping values are not allowed in this context"},
		{"---\nname: x\nname: y\n---\n", `line 3:1: field "name" is given twice`},
		{"---\n- a\n- b\n---\n", "line 2:1: the frontmatter must be a YAML mapping"},
		{"---\nname: x\n", "line 1:1: the frontmatter opened here is never closed"},
		{"---\n[a]: b\n---\n", "line 2:1: a frontmatter field name must be a plain string"},
	}
	for _, c := range cases {
		_, body, err := Split(c.text)
		var fe *Error
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Split(%q) err = %v, want prefix %q", c.text, err, c.want)
			continue
		}
		if body != c.text {
			t.Errorf("body on error = %q", body)
		}
		lineStart := strings.Count(c.text[:fe.Offset], "\n") + 1
		if lineStart != fe.Line {
			t.Errorf("Split(%q): offset %d is on line %d, error says %d", c.text, fe.Offset, lineStart, fe.Line)
		}
	}
}

// TestRenderKeepsEveryField: name and description are set in place, every
// other field survives in source order with its value, and rendering the
// output again is byte-identical (idempotent).
func TestRenderKeepsEveryField(t *testing.T) {
	src := "---\n# leading comment\ndescription: >-\n  Folded\n  text.\nlicense: 'It''s MIT'\nallowed-tools: Read Grep\nmetadata:\n  author: me # who\n  tags: [a, b]\ncompatibility: Requires git\ndisable-model-invocation: true\n---\n\nBody\n"
	d, body := mustSplit(t, src)
	out := Render(d, []Field{{"name", "pdf"}, {"description", "Folded text."}}, body)
	want := "---\nname: pdf\n# leading comment\ndescription: >-\n  Folded text.\nlicense: 'It''s MIT'\nallowed-tools: Read Grep\nmetadata:\n  author: me # who\n  tags: [a, b]\ncompatibility: Requires git\ndisable-model-invocation: true\n---\n\nBody\n"
	if string(out) != want {
		t.Errorf("Render:\n%s\nwant:\n%s", out, want)
	}
	var back map[string]any
	fm, _, _ := strings.Cut(strings.TrimPrefix(string(out), "---\n"), "---\n")
	if err := yaml.Unmarshal([]byte(fm), &back); err != nil {
		t.Fatal(err)
	}
	if back["license"] != "It's MIT" || back["disable-model-invocation"] != true || back["name"] != "pdf" ||
		back["metadata"].(map[string]any)["tags"].([]any)[1] != "b" {
		t.Errorf("read back: %v", back)
	}
	d2, body2 := mustSplit(t, string(out))
	if again := Render(d2, []Field{{"name", "pdf"}, {"description", "Folded text."}}, body2); string(again) != string(out) {
		t.Errorf("not idempotent:\n%s\nthen:\n%s", out, again)
	}
}

func TestRenderSetsChangedValues(t *testing.T) {
	d, _ := mustSplit(t, "---\nlicense: MIT\ndescription: old # note\nname: other\n---\n")
	got := string(Render(d, []Field{{"name", "pdf"}, {"description", "Use when: x"}}, ""))
	want := "---\nlicense: MIT\ndescription: \"Use when: x\" # note\nname: pdf\n---\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	got = string(Render(nil, []Field{{"name", "a"}, {"description", "yes"}}, "b"))
	if want := "---\nname: a\ndescription: \"yes\"\n---\n\nb\n"; got != want {
		t.Errorf("no source: got %q want %q", got, want)
	}
}

// TestRenderHostileValues: whatever the description, the frontmatter
// parses back to exactly that string.
func TestRenderHostileValues(t *testing.T) {
	for _, s := range []string{"Use when: x", "#tag", "a # b", "- item", "yes", "null", "~", "123", "it's", "tab\there",
		"multi\nline", "trailing ", "colon:", "{x}", "[x]", "*a", "&a", "!t", "%d", "@a", "`t`", `b\s`, "é 中文", "\u2028",
		"c\x01", "|l", ">f", "?q", "", "bad\xffutf8"} {
		out := Render(nil, []Field{{"description", s}}, "")
		d, _, err := Split(string(out))
		if err != nil {
			t.Fatalf("%q: %v\n%s", s, err, out)
		}
		if got, _, _ := d.Text("description"); got != strings.ToValidUTF8(s, "\uFFFD") {
			t.Errorf("%q read back as %q from\n%s", s, got, out)
		}
	}
}

// TestRenderIdempotent: a rendered frontmatter read back and rendered with
// the same fields gives the same bytes, whichever path wrote it first.
func TestRenderIdempotent(t *testing.T) {
	for _, s := range []string{"plain", "Use when: x", "#tag", "yes", "it's", "multi\nline", "tab\there", `q " b\s`, "é 中文", ""} {
		set := []Field{{"name", "pdf"}, {"description", s}}
		first := Render(nil, set, "body")
		d, body := mustSplit(t, string(first))
		if again := Render(d, set, body); string(again) != string(first) {
			t.Errorf("%q: not idempotent:\n%s\nthen:\n%s", s, first, again)
		}
	}
}

// TestSplitRefusesAliasBombs: nested aliases that expand to millions of
// nodes are refused; ordinary aliases are fine.
func TestSplitRefusesAliasBombs(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 8; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("---\n")
	if _, _, err := Split(b.String()); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("alias bomb: err = %v", err)
	}
	d, _ := mustSplit(t, "---\nbase: &b hello\ndescription: *b\n---\n")
	if v, ok, err := d.Text("description"); v != "hello" || !ok || err != nil {
		t.Errorf("alias description = %q %v %v", v, ok, err)
	}
}
