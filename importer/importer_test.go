package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/block"
	"github.com/actctl/actctl/reconcile"
)

// TestWrapKeepsEveryByte: the text goes into the block as apply renders
// it with heading: false (the text alone), and taking the two marker
// lines away gives the file back.
func TestWrapKeepsEveryByte(t *testing.T) {
	for _, c := range []struct{ name, in, prompt string }{
		{"plain", "# Rules\n\nBe brief.\n", "# Rules\n\nBe brief."},
		{"no final newline", "Be brief.", "Be brief."},
		{"CRLF", "# Rules\r\n\r\nBe brief.\r\n", "# Rules\n\nBe brief."},
		{"one CRLF line", "Be brief.\r\n", "Be brief."},
		{"CRLF, blank lines after", "Be brief.\r\n\r\n\r\n", "Be brief."},
		{"blank lines around", "\n\n  indented\n\n\n", "  indented"},
		{"tabs and braces", "\t{{ .Field }} and \\( and \"\"\"\n", "\t{{ .Field }} and \\( and \"\"\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, prompt, err := wrap("a", []byte(c.in))
			if err != nil || prompt != c.prompt {
				t.Fatalf("prompt %q, %v; want %q", prompt, err, c.prompt)
			}
			body, ok, err := block.Find(out, "a", block.StyleHTML)
			if want := c.prompt + "\n"; err != nil || !ok || string(body) != want {
				t.Errorf("block body %q, %v, %v; want %q", body, ok, err, want)
			}
			nl := "\n"
			if strings.Contains(c.in, "\r\n") {
				nl = "\r\n"
			}
			back := strings.NewReplacer("<!-- BEGIN actctl agent=a -->"+nl, "", "<!-- END actctl agent=a -->"+nl, "").Replace(string(out))
			want := c.in
			if !strings.HasSuffix(want, "\n") {
				want += nl
			}
			if back != want {
				t.Errorf("unwrapped %q, want %q", back, want)
			}
		})
	}
}

// TestWrapRefuses: text apply could not give back byte for byte.
func TestWrapRefuses(t *testing.T) {
	for _, mixed := range []string{"one\r\ntwo\nthree\n", "one\r\ntwo\n", "one\ntwo\r\n"} {
		if _, _, err := wrap("a", []byte(mixed)); err == nil || !strings.Contains(err.Error(), "mixes CRLF and LF") {
			t.Errorf("mixed line endings %q: %v", mixed, err)
		}
	}
	if _, _, err := wrap("a", []byte("caf\xe9\n")); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("Latin-1 text: %v", err)
	}
	if _, prompt, err := wrap("a", []byte(" \n\t\n")); err != nil || prompt != "" {
		t.Errorf("blank file: %q, %v", prompt, err)
	}
}

// TestWriteUndo: Write's undo puts back every byte it changed and removes
// what it created.
func TestWriteUndo(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"CLAUDE.md":                 "# Rules\n",
		".claude/skills/s/SKILL.md": "---\ndescription: >\n  folded\n---\nbody\n",
		".claude/skills/s/run.sh":   "#!/bin/sh\n",
	}
	for rel, c := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Scan(root, Options{Move: true})
	if err != nil {
		t.Fatal(err)
	}
	undo, err := p.Write()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "skills/s/run.sh")); err != nil {
		t.Errorf("not moved: %v", err)
	}
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	for rel, want := range files {
		if got, err := os.ReadFile(filepath.Join(root, rel)); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", rel, got, err, want)
		}
	}
	for _, gone := range []string{"actant.cue", "skills"} {
		if _, err := os.Lstat(filepath.Join(root, gone)); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", gone, err)
		}
	}
}

// TestRefused: only creates and updates are what adoption may cause.
func TestRefused(t *testing.T) {
	res := &reconcile.Result{Items: []reconcile.Item{
		{Path: ".gitignore", Action: reconcile.ActCreate},
		{Path: "AGENTS.md", Action: reconcile.ActUpdate},
		{Path: "x", Action: reconcile.ActWarning},
		{Path: "y", Action: reconcile.ActConflict},
		{Path: "z", Action: reconcile.ActDelete},
	}}
	got := Refused(res)
	if len(got) != 3 || got[0].Path != "x" || got[1].Path != "y" || got[2].Path != "z" {
		t.Errorf("Refused = %+v", got)
	}
}

// TestWriteFailsUndone: a file edited between Scan and Write is not
// replaced, and what Write had done before (a move) is undone.
func TestWriteFailsUndone(t *testing.T) {
	root := t.TempDir()
	for rel, c := range map[string]string{
		"CLAUDE.md":                 "# Rules\n",
		".claude/skills/s/SKILL.md": "---\ndescription: >\n  folded\n---\nbody\n",
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Scan(root, Options{Move: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte("# Edited meanwhile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write(); err == nil || !strings.Contains(err.Error(), "CLAUDE.md changed while import ran") {
		t.Fatalf("Write: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "CLAUDE.md")); string(got) != "# Edited meanwhile\n" {
		t.Errorf("CLAUDE.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, ".claude/skills/s/SKILL.md")); err != nil {
		t.Errorf("the move was not undone: %v", err)
	}
	for _, gone := range []string{"actant.cue", "skills"} {
		if _, err := os.Lstat(filepath.Join(root, gone)); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", gone, err)
		}
	}
}
