package materialize

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestBackendsDocFormats: docs/backends.md's field table lists every
// sub-agent format and every rules format the renderer takes (its
// sub-agent list lacked antigravity: issue #34 item 8).
func TestBackendsDocFormats(t *testing.T) {
	b, err := os.ReadFile("../docs/backends.md")
	if err != nil {
		t.Fatal(err)
	}
	row := func(field string) string {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "| `"+field+"` |") {
				return l
			}
		}
		t.Fatalf("no row for %s in docs/backends.md", field)
		return ""
	}
	subRow, rulesRow := row("files.subAgents"), row("files.rules")
	formats := []string{
		schema.FormatSkillDir, schema.FormatCursorMDC, schema.FormatMarkdown, schema.FormatInstructions,
		schema.FormatClaudeRules, schema.FormatPathsRules, schema.FormatSteering, schema.FormatGlobTrigger, schema.FormatGlobsRules,
		schema.FormatClaudeSub, schema.FormatMarkdownSub, schema.FormatClineSub, schema.FormatQwenSub,
		schema.FormatKiroSub, schema.FormatCodexSub, schema.FormatGeminiSub, schema.FormatCursorSub,
		schema.FormatCopilotSub, schema.FormatOpenCodeSub, schema.FormatDevinSub, schema.FormatAntigravitySub,
		schema.FormatGooseSub,
	}
	for _, f := range formats {
		l := &schema.DirLayout{Dir: "d", Format: f}
		if _, _, _, err := subAgentFile(l, subAgent{name: "x", desc: "y"}); err == nil && !strings.Contains(subRow, strconv.Quote(f)) {
			t.Errorf("sub-agent format %q is not in docs/backends.md's files.subAgents row", f)
		}
		if _, err := rulePath(l, "x"); err == nil && !strings.Contains(rulesRow, strconv.Quote(f)) {
			t.Errorf("rules format %q is not in docs/backends.md's files.rules row", f)
		}
	}
}
