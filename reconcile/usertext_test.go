package reconcile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUserText: text outside actctl's blocks is the user's; blank lines
// and blocks alone are not; a missing file holds none.
func TestUserText(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]bool{
		"# Rules\n\nAlways run make test.\n": true,
		"":                                   false,
		"\n\n  \n":                           false,
		"<!-- BEGIN actctl agent=a -->\n## a\n\ntext\n<!-- END actctl agent=a -->\n":                                                          false,
		"<!-- BEGIN actctl agent=a -->\n## a\n<!-- END actctl agent=a -->\n\n<!-- BEGIN actctl agent=b -->\nb\n<!-- END actctl agent=b -->\n": false,
		"<!-- BEGIN actctl agent=a -->\n## a\n<!-- END actctl agent=a -->\nmine\n":                                                            true,
		"mine\r\n<!-- BEGIN actctl agent=a -->\r\n## a\r\n<!-- END actctl agent=a -->\r\n":                                                    true,
	} {
		p := filepath.Join(dir, "AGENTS.md")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := userText(p); got != want {
			t.Errorf("%q: %v, want %v", content, got, want)
		}
	}
	if userText(filepath.Join(dir, "missing.md")) {
		t.Error("a missing file holds user text")
	}
}
