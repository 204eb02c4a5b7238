package materialize

import (
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestInstructionHeading: the agent's block starts with its "## <agent>"
// heading unless the template's heading is false; then the description
// and the prompts stand alone, and a block with nothing else keeps it.
func TestInstructionHeading(t *testing.T) {
	off := false
	for _, c := range []struct {
		name    string
		heading *bool
		prompts []string
		want    string
	}{
		{"default", nil, []string{"style"}, "## reviewer\n\nReviews pull requests\n\nAnswer in friendly tone.\n"},
		{"heading false", &off, []string{"style"}, "Reviews pull requests\n\nAnswer in friendly tone.\n"},
		{"heading false, nothing else", &off, nil, "## reviewer\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := sampleConfig("codex", schema.ArchTool)
			tp := cfg.Templates["reviewer"]
			tp.Heading, tp.Prompts = c.heading, c.prompts
			if c.prompts == nil {
				tp.Description = ""
			}
			cfg.Templates["reviewer"] = tp
			got := string(render(t, cfg, "reviewer", Options{}).Find("AGENTS.md").Content)
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("block %q, want it to start %q", got, c.want)
			}
		})
	}
}
