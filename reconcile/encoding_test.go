package reconcile

import (
	"strings"
	"testing"

	"github.com/actctl/actctl/materialize"
)

// TestPlanRefusesNonUTF8: a block is never added to (or removed from) a
// file that is not UTF-8 text: a conflict names the file and why, and the
// plan has no op. A UTF-8 byte order mark is fine.
func TestPlanRefusesNonUTF8(t *testing.T) {
	root := "/ws"
	blk := materialize.Entry{Path: "CLAUDE.md", Mode: materialize.ModeBlock, Style: "html", Content: []byte("hello\n")}
	utf16 := "\xff\xfe#\x00 \x00N\x00o\x00t\x00e\x00s\x00\n\x00"
	cases := []struct{ name, content, why string }{
		{"UTF-16LE", utf16, "UTF-16LE byte order mark"},
		{"UTF-16BE", "\xfe\xff\x00#\x00\n", "UTF-16BE byte order mark"},
		{"UTF-32LE", "\xff\xfe\x00\x00#\x00\x00\x00", "UTF-32LE byte order mark"},
		{"UTF-16 without BOM", "#\x00 \x00N\x00\n\x00", "NUL byte at offset 1"},
		{"binary", "\x89PNG\r\n\x1a\n\x00\x00", "NUL byte at offset 8"},
		{"invalid UTF-8", "\x89PNG\r\n", "invalid UTF-8 at offset 0"},
		{"Latin-1", "# Caf\xe9\n", "invalid UTF-8 at offset 5"},
		{"UTF-8 with BOM", "\xef\xbb\xbf# Café\n", ""},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := MakePlan(root, []*materialize.Target{target(root, "a", "append", blk)}, snapOf(root, map[string]string{"CLAUDE.md": c.content}), nil, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			conf := p.Conflicts()
			if c.why == "" {
				if len(conf) != 0 || len(p.Ops) != 1 || p.Ops[0].Action != ActUpdate {
					t.Errorf("UTF-8 file refused: ops %v, conflicts %v", p.Ops, conf)
				}
				return
			}
			if len(p.Ops) != 0 {
				t.Errorf("ops planned for a non-UTF-8 file: %+v", p.Ops[0])
			}
			if len(conf) != 1 || conf[0].Rel != "CLAUDE.md" || conf[0].Agent != "a" ||
				!strings.Contains(conf[0].Reason, "not UTF-8 text: ") || !strings.Contains(conf[0].Reason, c.why) {
				t.Errorf("conflicts %+v, want one for CLAUDE.md saying %q", conf, c.why)
			}
		})
	}
	// A file with actctl's block that the user converted to UTF-16: prune
	// refuses too, rather than losing the block's trace.
	first, err := MakePlan(root, []*materialize.Target{target(root, "a", "append", blk)}, snapOf(root, map[string]string{"CLAUDE.md": "# Notes\n"}), nil, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := MakePlan(root, nil, snapOf(root, map[string]string{"CLAUDE.md": utf16}), first.State, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Conflicts()) != 1 || len(p.Ops) != 0 {
		t.Errorf("prune of a UTF-16 file: ops %v, conflicts %+v", p.Ops, p.Conflicts())
	}
}
