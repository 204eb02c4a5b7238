package importer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cuelang.org/go/cue/literal"

	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// TestUpdateTakesEdits: a hand edit of imported text is drift that names
// the prompt and its position; Update writes the block's text into that
// prompt's string in place (every other byte of actant.cue kept), after
// which apply sees no drift. Text that is not one prompt, and the same
// prompt edited differently in two files, are left with the reason; a dry
// run writes nothing (issue #34 item 14).
func TestUpdateTakesEdits(t *testing.T) {
	texts := []string{
		"# Project\n\nUse Go 1.26. Run tests.",
		`back\slash \( interp "quotes" """ triple`,
		"ends with blank lines\n\n",
	}
	for _, text := range texts {
		root, home := t.TempDir(), t.TempDir()
		head := "package actant\n\n// mine: kept\n"
		cue := head + "prompts: {\n\t// From CLAUDE.md.\n\t\"claude-code\": content: " + literalQuote(text) + "\n}\n\n" +
			"templates: \"claude-code\": {\n\tbackend: \"claude-code\"\n\tprompts: [\"claude-code\"]\n\theading: false\n}\n\n" +
			"agents: \"claude-code\": template: \"claude-code\"\n"
		write(t, filepath.Join(root, schema.FileName), cue)
		cfg := load(t, root, home)
		apply(t, cfg, reconcile.Options{})
		claude := filepath.Join(root, "CLAUDE.md")
		data, _ := os.ReadFile(claude)
		edited := strings.Replace(string(data), "<!-- END", "and one more line\n<!-- END", 1)
		write(t, claude, edited)

		res := apply(t, load(t, root, home), reconcile.Options{DryRun: true})
		if len(res.Items) != 1 || res.Items[0].Source != `prompts."claude-code".content` ||
			!strings.Contains(res.Items[0].Reason, "at actant.cue:6:26 in the config; take this edit into the config with `actctl import --update`") {
			t.Fatalf("drift items: %+v", res.Items)
		}
		if _, _, err := Update(context.Background(), load(t, root, home), true); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(root, schema.FileName)); string(got) != cue {
			t.Fatalf("dry run wrote actant.cue")
		}
		taken, left, err := Update(context.Background(), load(t, root, home), false)
		if err != nil || len(taken) != 1 || len(left) != 0 || taken[0].At != "actant.cue:6:26" {
			t.Fatalf("Update = %+v, %+v, %v", taken, left, err)
		}
		got, _ := os.ReadFile(filepath.Join(root, schema.FileName))
		if !strings.HasPrefix(string(got), head+"prompts: {\n\t// From CLAUDE.md.\n\t\"claude-code\": content: ") ||
			!strings.HasSuffix(string(got), "\n}\n\ntemplates: \"claude-code\": {\n\tbackend: \"claude-code\"\n\tprompts: [\"claude-code\"]\n\theading: false\n}\n\nagents: \"claude-code\": template: \"claude-code\"\n") {
			t.Errorf("bytes outside the prompt changed:\n%s", got)
		}
		cfg = load(t, root, home)
		want := strings.TrimRight(text, "\n") + "\nand one more line" + text[len(strings.TrimRight(text, "\n")):]
		if c := cfg.Prompts["claude-code"].Content; c != want {
			t.Errorf("prompt = %q, want %q", c, want)
		}
		if res := apply(t, cfg, reconcile.Options{}); res.Counts.Drifted != 0 || res.Counts.Changed != 0 {
			t.Errorf("apply after update: %+v %+v", res.Counts, res.Items)
		}
		if b, _ := os.ReadFile(claude); string(b) != edited {
			t.Errorf("CLAUDE.md changed: %q", b)
		}
	}
}

// TestUpdateLeaves: a block made of a heading and a prompt is not one
// prompt's text, and is left with the reason; nothing is written.
func TestUpdateLeaves(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	cue := "package actant\n\nprompts: p: content: \"one\"\ntemplates: t: {backend: \"claude-code\", prompts: [\"p\"]}\nagents: dev: template: \"t\"\n"
	write(t, filepath.Join(root, schema.FileName), cue)
	apply(t, load(t, root, home), reconcile.Options{})
	claude := filepath.Join(root, "CLAUDE.md")
	data, _ := os.ReadFile(claude)
	write(t, claude, strings.Replace(string(data), "one", "two", 1))
	taken, left, err := Update(context.Background(), load(t, root, home), false)
	if err != nil || len(taken) != 0 || len(left) != 1 || !strings.Contains(left[0].Reason, "not one prompt of the config as written") {
		t.Fatalf("Update = %+v, %+v, %v", taken, left, err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, schema.FileName)); string(got) != cue {
		t.Errorf("actant.cue written")
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func load(t *testing.T, root, home string) *schema.Config {
	t.Helper()
	cfg, err := schema.LoadDir(root, home)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func apply(t *testing.T, cfg *schema.Config, o reconcile.Options) *reconcile.Result {
	t.Helper()
	res, err := reconcile.Apply(context.Background(), cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func literalQuote(s string) string {
	return literal.String.WithOptionalTabIndent(2).Quote(s)
}
