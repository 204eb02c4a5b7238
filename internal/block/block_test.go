package block

import (
	"bytes"
	"strings"
	"testing"
)

func TestMarkers(t *testing.T) {
	b, e, err := Markers("reviewer", StyleHTML)
	if err != nil || b != "<!-- BEGIN actctl agent=reviewer -->" || e != "<!-- END actctl agent=reviewer -->" {
		t.Fatalf("html: %q %q %v", b, e, err)
	}
	b, e, err = Markers("reviewer", StyleHash)
	if err != nil || b != "# BEGIN actctl agent=reviewer" || e != "# END actctl agent=reviewer" {
		t.Fatalf("hash: %q %q %v", b, e, err)
	}
	b, e, err = Markers(Shared, StyleHash)
	if err != nil || b != "# BEGIN actctl" || e != "# END actctl" {
		t.Fatalf("shared: %q %q %v", b, e, err)
	}
	// The file's own block and an agent's are told apart.
	two := []byte("# BEGIN actctl agent=a\n/a\n# END actctl agent=a\n# BEGIN actctl\n/s\n# END actctl\n")
	if body, ok, err := Find(two, Shared, StyleHash); err != nil || !ok || string(body) != "/s\n" {
		t.Fatalf("Find(shared) = %q %v %v", body, ok, err)
	}
	if body, ok, err := Find(two, "a", StyleHash); err != nil || !ok || string(body) != "/a\n" {
		t.Fatalf("Find(a) = %q %v %v", body, ok, err)
	}
	for _, bad := range []struct{ name, style string }{
		{"", StyleHTML}, {"a b", StyleHTML}, {"a\nb", StyleHash}, {"x-->y", StyleHTML}, {"ok", "xml"},
	} {
		if _, _, err := Markers(bad.name, bad.style); err == nil {
			t.Errorf("Markers(%q, %q): want error", bad.name, bad.style)
		}
	}
}

func TestUpsertAppend(t *testing.T) {
	const B = "<!-- BEGIN actctl agent=a -->"
	const E = "<!-- END actctl agent=a -->"
	tests := []struct {
		name, content, body, want, sep string
	}{
		{"empty", "", "hi\n", B + "\nhi\n" + E + "\n", ""},
		{"trailing newline", "# Title\n", "hi\n", "# Title\n\n" + B + "\nhi\n" + E + "\n", "\n"},
		{"no trailing newline", "# Title", "hi", "# Title\n\n" + B + "\nhi\n" + E + "\n", "\n\n"},
		{"crlf", "# Title\r\n", "hi\nthere\n", "# Title\r\n\r\n" + B + "\r\nhi\r\nthere\r\n" + E + "\r\n", "\r\n"},
		{"crlf no final", "a\r\nb", "x", "a\r\nb\r\n\r\n" + B + "\r\nx\r\n" + E + "\r\n", "\r\n\r\n"},
		{"empty body", "x\n", "", "x\n\n" + B + "\n" + E + "\n", "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, sep, err := Upsert([]byte(tt.content), "a", StyleHTML, []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("out =\n%q\nwant\n%q", out, tt.want)
			}
			if string(sep) != tt.sep || sep == nil {
				t.Errorf("sep = %q (nil=%v), want %q", sep, sep == nil, tt.sep)
			}
			back, err := Remove(out, "a", StyleHTML, sep)
			if err != nil || string(back) != tt.content {
				t.Errorf("Remove = %q, %v; want %q", back, err, tt.content)
			}
		})
	}
}

func TestUpsertReplaceKeepsOutside(t *testing.T) {
	in := "intro\r\n  # BEGIN actctl agent=x  \r\nold\r\n# END actctl agent=x\r\noutro"
	out, sep, err := Upsert([]byte(in), "x", StyleHash, []byte("new\nlines"))
	if err != nil {
		t.Fatal(err)
	}
	if sep != nil {
		t.Errorf("sep = %q, want nil on replace", sep)
	}
	want := "intro\r\n  # BEGIN actctl agent=x  \r\nnew\r\nlines\r\n# END actctl agent=x\r\noutro"
	if string(out) != want {
		t.Errorf("out = %q\nwant %q", out, want)
	}
	body, ok, err := Find(out, "x", StyleHash)
	if err != nil || !ok || string(body) != "new\nlines\n" {
		t.Errorf("Find = %q %v %v", body, ok, err)
	}
}

func TestOtherBlocksUntouched(t *testing.T) {
	in := "<!-- BEGIN actctl agent=other -->\nkeep\n<!-- END actctl agent=other -->\n"
	out, sep, err := Upsert([]byte(in), "me", StyleHTML, []byte("mine\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte(in)) {
		t.Fatalf("other block changed: %q", out)
	}
	back, err := Remove(out, "me", StyleHTML, sep)
	if err != nil || string(back) != in {
		t.Fatalf("Remove = %q %v", back, err)
	}
	if _, ok, _ := Find(out, "othe", StyleHTML); ok {
		t.Error("prefix name must not match")
	}
}

func TestMalformed(t *testing.T) {
	const B = "# BEGIN actctl agent=a\n"
	const E = "# END actctl agent=a\n"
	tests := []struct{ name, content, wantErr string }{
		{"begin without end", "x\n" + B + "body\n", "line 2"},
		{"end before begin", E + B + E, "line 1"},
		{"duplicate", B + E + "x\n" + B + E, "line 4"},
		{"nested begin", B + B + E, "line 2"},
		{"extra end", B + E + E, "line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Find([]byte(tt.content), "a", StyleHash)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Find err = %v, want mention of %q", err, tt.wantErr)
			}
			if _, _, err := Upsert([]byte(tt.content), "a", StyleHash, []byte("x")); err == nil {
				t.Error("Upsert: want error")
			}
			if _, err := Remove([]byte(tt.content), "a", StyleHash, nil); err == nil {
				t.Error("Remove: want error")
			}
		})
	}
}

func TestBodyWithOwnMarkerRejected(t *testing.T) {
	if _, _, err := Upsert(nil, "a", StyleHash, []byte("# END actctl agent=a\n")); err == nil {
		t.Fatal("want error")
	}
}

func TestRemoveMovedBlock(t *testing.T) {
	const blk = "<!-- BEGIN actctl agent=a -->\nx\n<!-- END actctl agent=a -->\n"
	tests := []struct{ name, content, sep, want string }{
		{"at start", blk + "user\n", "\n", "user\n"},
		{"in middle", "one\n" + blk + "two\n", "\n", "one\ntwo\n"},
		{"middle after blank", "one\n\n" + blk + "two\n", "\n", "one\ntwo\n"},
		{"no end newline", "one\n\n" + strings.TrimSuffix(blk, "\n"), "\n", "one\n"},
		{"user removed blank line", "one\n" + blk, "\n", "one\n"},
		{"user text after", "one\n\n" + blk + "after\n", "\n", "one\nafter\n"},
		{"absent", "nothing here\n", "\n", "nothing here\n"},
		{"nil sep", "one\n\n" + blk, "", "one\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Remove([]byte(tt.content), "a", StyleHTML, []byte(tt.sep))
			if err != nil || string(got) != tt.want {
				t.Errorf("Remove = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestUserEditsAroundBlock(t *testing.T) {
	orig := "# Project\n\nSome notes"
	out, sep, err := Upsert([]byte(orig), "rev", StyleHTML, []byte("be nice\n"))
	if err != nil {
		t.Fatal(err)
	}
	// The user edits the text before the block and appends after it.
	edited := bytes.Replace(out, []byte("Some notes"), []byte("Other notes\nmore"), 1)
	edited = append(edited, "appended by user\n"...)
	got, err := Remove(edited, "rev", StyleHTML, sep)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Project\n\nOther notes\nmoreappended by user\n"; string(got) != want {
		t.Errorf("got %q want %q", got, want)
	}
}

// checkRoundTrip is the key property: for content without the block,
// Remove(Upsert(c)) == c, also with user text added after the block or
// before the whole file, and Find returns the body that was written.
func checkRoundTrip(t *testing.T, content, body []byte, name, style string, prefix, suffix []byte) {
	begin, end, err := Markers(name, style)
	if err != nil {
		return
	}
	if _, ok, err := Find(content, name, style); ok || err != nil {
		return // content already has (or breaks) the block: not this property
	}
	out, sep, err := Upsert(content, name, style, body)
	if err != nil {
		if _, nerr := normalizeBody(body, begin, end, []byte("\n")); nerr == nil {
			t.Fatalf("Upsert(%q, %q): %v", content, body, err)
		}
		return
	}
	if !bytes.HasPrefix(out, content) {
		t.Fatalf("Upsert changed existing bytes: %q -> %q", content, out)
	}
	got, ok, err := Find(out, name, style)
	if err != nil || !ok {
		t.Fatalf("Find after Upsert: %v %v (out %q)", ok, err, out)
	}
	if !bytes.Contains(body, []byte("\r")) {
		want := bytes.Clone(body)
		if len(want) > 0 && want[len(want)-1] != '\n' {
			want = append(want, '\n')
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Find = %q, want %q", got, want)
		}
	}
	back, err := Remove(out, name, style, sep)
	if err != nil || !bytes.Equal(back, content) {
		t.Fatalf("Remove(Upsert(%q)) = %q, %v", content, back, err)
	}
	// The user converts the file's line endings (unix2dos, dos2unix, an
	// editor setting): prune still takes exactly the separator away.
	checkConverted(t, out, content, name, style, sep)
	// Upsert again with the same body is a no-op.
	again, sep2, err := Upsert(out, name, style, body)
	if err != nil || sep2 != nil || !bytes.Equal(again, out) {
		t.Fatalf("second Upsert changed output: %q -> %q (%v)", out, again, err)
	}
	// User text after the block survives, and so does text they put
	// before everything (unless it forms marker lines itself).
	if bytes.Contains(suffix, []byte("actctl")) || bytes.Contains(prefix, []byte("actctl")) {
		return
	}
	edited := append(append(append([]byte{}, prefix...), out...), suffix...)
	back, err = Remove(edited, name, style, sep)
	wantBack := append(append(append([]byte{}, prefix...), content...), suffix...)
	if len(content) == 0 && len(prefix) > 0 {
		return // sep was "" and now follows user text: nothing to check beyond no error
	}
	if err != nil || !bytes.Equal(back, wantBack) {
		t.Fatalf("Remove(prefix+Upsert+suffix) = %q, %v; want %q", back, err, wantBack)
	}
}

// checkConverted: Remove on out with its line endings converted gives
// content converted the same way.
func checkConverted(t *testing.T, out, content []byte, name, style string, sep []byte) {
	t.Helper()
	crlf, lf := []byte("\r\n"), []byte("\n")
	convs := []struct {
		name     string
		ok       bool
		from, to []byte
	}{
		{"to CRLF", !bytes.Contains(out, []byte("\r")), lf, crlf},
		{"to LF", bytes.Count(out, []byte("\r")) == bytes.Count(out, crlf), crlf, lf},
	}
	for _, c := range convs {
		// A final CR of content would join the separator's LF into one
		// CRLF: the conversion then changes what the user wrote.
		if !c.ok || bytes.HasSuffix(content, []byte("\r")) {
			continue
		}
		got, err := Remove(bytes.ReplaceAll(out, c.from, c.to), name, style, sep)
		if want := bytes.ReplaceAll(content, c.from, c.to); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Remove(Upsert(%q) %s) = %q, %v; want %q", content, c.name, got, err, want)
		}
	}
}

// TestRemoveAfterLineEndingChange: a file converted to CRLF (or back to
// LF) after apply loses its block and the separator, no extra blank line.
func TestRemoveAfterLineEndingChange(t *testing.T) {
	const blkLF = "<!-- BEGIN actctl agent=a -->\nx\n<!-- END actctl agent=a -->\n"
	blkCRLF := strings.ReplaceAll(blkLF, "\n", "\r\n")
	tests := []struct{ name, content, sep, want string }{
		{"LF file made CRLF", "# Notes\r\n\r\n" + blkCRLF, "\n", "# Notes\r\n"},
		{"LF file without final newline made CRLF", "# Notes\r\n\r\n" + blkCRLF, "\n\n", "# Notes"},
		{"CRLF file made LF", "# Notes\n\n" + blkLF, "\r\n", "# Notes\n"},
		{"CRLF file without final newline made LF", "# Notes\n\n" + blkLF, "\r\n\r\n", "# Notes"},
		{"mixed endings", "# Notes\r\n\n" + blkLF, "\n", "# Notes\r\n"},
		{"user removed the blank line", "# Notes\r\n" + blkCRLF, "\n", "# Notes\r\n"},
		{"only the separator before", "\r\n" + blkCRLF, "\n", ""},
		{"line ending after a lone CR kept", "# Notes\r\r\n" + blkCRLF, "\n", "# Notes\r\r\n"},
		{"separator of other bytes kept exact", "# Notes\n--\n" + blkLF, "--\n", "# Notes\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Remove([]byte(tt.content), "a", StyleHTML, []byte(tt.sep))
			if err != nil || string(got) != tt.want {
				t.Errorf("Remove = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestRoundTripTable(t *testing.T) {
	contents := []string{"", "\n", "\n\n", "x", "x\n", "x\r\n", "a\r\nb", "a\nb\n\n", "\r", "x\r", "<!-- BEGIN actctl agent=b -->\n<!-- END actctl agent=b -->"}
	bodies := []string{"", "\n", "x", "x\n", "a\nb", "a\r\nb\r\n", "\r"}
	for _, c := range contents {
		for _, b := range bodies {
			for _, st := range []string{StyleHTML, StyleHash} {
				checkRoundTrip(t, []byte(c), []byte(b), "a", st, []byte("pre\n"), []byte("post\n"))
			}
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(""), []byte("body\n"), "agent", true, []byte(""), []byte(""))
	f.Add([]byte("# T\n"), []byte("x"), "a", false, []byte("p\n"), []byte("s"))
	f.Add([]byte("a\r\nb"), []byte("x\ny"), "rev-1", true, []byte(""), []byte("s\r\n"))
	f.Add([]byte("text without newline"), []byte(""), "z", true, []byte(""), []byte("\n"))
	f.Add([]byte("<!-- BEGIN actctl agent=other -->\nq\n<!-- END actctl agent=other -->\n"), []byte("b\n"), "me", true, []byte(""), []byte(""))
	f.Add([]byte("node_modules/\n# comment"), []byte("logs/\n.actant/\n"), "w", false, []byte("x\n"), []byte("y"))
	f.Add([]byte("# Notes\n"), []byte("x\n"), "a", true, []byte(""), []byte(""))
	f.Add([]byte("a\r\nb\r\n"), []byte("x\n"), "a", false, []byte(""), []byte(""))
	f.Fuzz(func(t *testing.T, content, body []byte, name string, html bool, prefix, suffix []byte) {
		style := StyleHash
		if html {
			style = StyleHTML
		}
		checkRoundTrip(t, content, body, name, style, prefix, suffix)
	})
}

// FuzzNoPanic feeds arbitrary content to every entry point: errors are
// fine, panics and changes outside the block are not.
func FuzzNoPanic(f *testing.F) {
	f.Add([]byte("# BEGIN actctl agent=a\nx\n# END actctl agent=a\n"), []byte("y"))
	f.Add([]byte("# END actctl agent=a\n# BEGIN actctl agent=a\n"), []byte(""))
	f.Add([]byte("pre\n# BEGIN actctl agent=a\r\nx\r\n# END actctl agent=a"), []byte("new"))
	f.Fuzz(func(t *testing.T, content, body []byte) {
		_, ok, ferr := Find(content, "a", StyleHash)
		out, _, err := Upsert(content, "a", StyleHash, body)
		if (err == nil) != (ferr == nil) && !bytes.Contains(body, []byte("actctl")) {
			t.Fatalf("Find err %v vs Upsert err %v", ferr, err)
		}
		if err == nil && ok {
			// Replacing keeps the text outside the body.
			sp, _, _ := locate(content, "# BEGIN actctl agent=a", "# END actctl agent=a")
			if !bytes.HasPrefix(out, content[:sp.bodyStart]) || !bytes.HasSuffix(out, content[sp.endStart:]) {
				t.Fatalf("replace changed outside text: %q -> %q", content, out)
			}
		}
		_, _ = Remove(content, "a", StyleHash, []byte("\n"))
	})
}

// TestRenameErrors: a missing source block, a target already present and
// malformed markers are refused, and nothing is returned.
func TestRenameErrors(t *testing.T) {
	both := "<!-- BEGIN actctl agent=a -->\nx\n<!-- END actctl agent=a -->\n<!-- BEGIN actctl agent=b -->\ny\n<!-- END actctl agent=b -->\n"
	for _, c := range []struct{ content, want string }{
		{"text\n", "block a: not in the file"},
		{both, "block b: already in the file"},
		{"<!-- BEGIN actctl agent=a -->\nx\n", "without a matching END"},
	} {
		out, err := Rename([]byte(c.content), "a", "b", StyleHTML)
		if err == nil || !strings.Contains(err.Error(), c.want) || out != nil {
			t.Errorf("Rename(%q) = %q, %v; want error containing %q", c.content, out, err, c.want)
		}
	}
}

// FuzzRename: renaming a block and back gives the original bytes; the
// renamed block has the same body, and the old name no block.
func FuzzRename(f *testing.F) {
	f.Add([]byte("# T\n"), []byte("x\n"), []byte("after\n"), true)
	f.Add([]byte("a\r\nb\r\n"), []byte("x\r\ny"), []byte(""), false)
	f.Add([]byte(""), []byte(""), []byte("  indented? no\n"), true)
	f.Fuzz(func(t *testing.T, prefix, body, suffix []byte, html bool) {
		style := StyleHash
		if html {
			style = StyleHTML
		}
		c, _, err := Upsert(prefix, "old", style, body)
		if err != nil {
			return
		}
		c = append(c, suffix...)
		want, ok, err := Find(c, "old", style)
		if err != nil || !ok {
			return // the suffix broke the block: nothing to rename
		}
		r, err := Rename(c, "old", "new-name", style)
		if err != nil {
			if _, ok, _ := Find(c, "new-name", style); ok {
				return
			}
			t.Fatalf("Rename: %v", err)
		}
		got, ok, err := Find(r, "new-name", style)
		if err != nil || !ok || !bytes.Equal(got, want) {
			t.Fatalf("renamed body %q (%v, %v), want %q", got, ok, err, want)
		}
		if _, ok, _ := Find(r, "old", style); ok {
			t.Fatalf("old block still present in %q", r)
		}
		back, err := Rename(r, "new-name", "old", style)
		if err != nil || !bytes.Equal(back, c) {
			t.Fatalf("rename back = %q, %v; want %q", back, err, c)
		}
	})
}
