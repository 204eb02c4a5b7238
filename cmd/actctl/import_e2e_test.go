package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/importer"
	"github.com/actctl/actctl/reconcile"
)

// importJSON is the part of `import -o json` the tests read (docs/json.md).
type importJSON struct {
	Agents []string          `json:"agents"`
	Taken  []importer.Item   `json:"taken"`
	Left   []importer.Item   `json:"left"`
	Edits  []importer.Edit   `json:"edits"`
	Moves  []importer.Move   `json:"moves"`
	Config string            `json:"config"`
	Apply  *reconcile.Result `json:"apply"`
	DryRun bool              `json:"dryRun"`
}

// readTree returns every file under dir (slash paths) with its bytes.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeTree writes files (slash paths) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// importedBlockRe are the lines import adds around an instruction file's
// text: the BEGIN marker with the agent's heading, and the END marker.
var importedBlockRe = regexp.MustCompile(`(?m)^<!-- BEGIN actctl agent=\S+ -->\r?\n## \S+\r?\n\r?\n|^<!-- END actctl agent=\S+ -->\r?\n`)

// keptEveryByte checks that after import every file of orig is where it
// was with the same bytes, moved (--move) with the same bytes, or an
// instruction file whose text is in its block with nothing lost.
func keptEveryByte(t *testing.T, dir string, orig map[string]string, out importJSON) {
	t.Helper()
	now := readTree(t, dir)
	edited := map[string]bool{}
	for _, e := range out.Edits {
		edited[e.Path] = true
	}
	for rel, want := range orig {
		for _, m := range out.Moves {
			if strings.HasPrefix(rel, m.From+"/") {
				rel = m.To + strings.TrimPrefix(rel, m.From)
			}
		}
		got, ok := now[rel]
		switch {
		case !ok:
			t.Errorf("%s is gone after import", rel)
		case edited[rel]:
			if !strings.HasSuffix(want, "\n") {
				want += "\n" // the END line ends the file
			}
			if un := importedBlockRe.ReplaceAllString(got, ""); un != want {
				t.Errorf("%s: the text inside its block is not the original:\n got %q\nwant %q", rel, un, want)
			}
		case got != want:
			t.Errorf("%s changed on import:\n got %q\nwant %q", rel, got, want)
		}
	}
}

// items lists "kind name" of each item.
func items(its []importer.Item) []string {
	out := []string{}
	for _, it := range its {
		out = append(out, strings.TrimSpace(it.Backend+" "+it.Kind+" "+it.Name))
	}
	slices.Sort(out)
	return out
}

// roundTrip imports dir, checks that nothing was lost, then that apply
// writes nothing and diff finds nothing. It returns the import's output.
func roundTrip(t *testing.T, dir string, args ...string) importJSON {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	orig := readTree(t, dir)
	r := actctl(t, dir, home, append([]string{"-o", "json", "import"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	var out importJSON
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("import -o json: %v\n%s", err, r.Stdout)
	}
	for _, it := range out.Left {
		if it.Reason == "" {
			t.Errorf("left without a reason: %+v", it)
		}
	}
	keptEveryByte(t, dir, orig, out)
	before := stamps(t, dir)
	res := mustApply(t, dir, home)
	if res.Counts.Changed != 0 || len(res.Items) != 0 {
		t.Errorf("apply after import: %+v %+v", res.Counts, res.Items)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("apply after import wrote:\n%s", diffStamps(before, after))
	}
	if d := actctl(t, dir, home, "diff"); d.Code != 0 {
		t.Errorf("diff after import: exit %d\n%s\n%s", d.Code, d.Stdout, d.Stderr)
	}
	return out
}

// TestImportRoundTrip imports real repositories' agent files (fixtures in
// importer/testdata/repos, sources and licences in its README) and this
// repository's own: apply then writes nothing and diff exits 0, every
// byte of the files is kept, and what import could not take is listed.
func TestImportRoundTrip(t *testing.T) {
	own := t.TempDir()
	for _, f := range []string{"CLAUDE.md", "AGENTS.md", ".claude", ".agents", ".codex"} {
		copyInto(t, filepath.Join("..", "..", f), filepath.Join(own, f))
	}
	cases := []struct {
		name, src   string
		move        bool
		taken, left []string
	}{
		{"mcp-typescript-sdk", "", false, []string{"claude-code instructions claude-code"}, []string{}},
		{"playwright-mcp", "", false, []string{"claude-code instructions claude-code"}, []string{"claude-code skill release.md"}},
		{"posthog", "", false, []string{"claude-code mcp phrocs", "claude-code settings hooks"}, []string{"claude-code skill hogli"}},
		{"posthog", "", true, []string{"claude-code mcp phrocs", "claude-code settings hooks", "claude-code skill hogli"}, []string{}},
		{"gemini-cli", "", false, []string{"gemini instructions gemini", "gemini settings experimental", "gemini settings general"}, []string{"gemini skill code-reviewer", "gemini skill docs-changelog"}},
		{"gemini-cli", "", true, []string{"gemini instructions gemini", "gemini settings experimental", "gemini settings general", "gemini skill code-reviewer", "gemini skill docs-changelog"}, []string{}},
		{"actctl", own, false, []string{"claude-code instructions maintainer", "claude-code permissions", "claude-code skill actctl-dev", "codex instructions maintainer-codex", "codex permissions", "codex skill actctl-dev"}, []string{}},
	}
	for _, c := range cases {
		name := c.name
		if c.move {
			name += "/move"
		}
		t.Run(name, func(t *testing.T) {
			src := c.src
			if src == "" {
				src = filepath.Join("..", "..", "importer", "testdata", "repos", c.name)
			}
			dir := t.TempDir()
			copyInto(t, src, dir)
			var args []string
			if c.move {
				args = append(args, "--move")
			}
			out := roundTrip(t, dir, args...)
			want := append([]string{}, c.taken...)
			slices.Sort(want)
			if got := items(out.Taken); !slices.Equal(got, want) {
				t.Errorf("taken %q, want %q", got, want)
			}
			want = append([]string{}, c.left...)
			slices.Sort(want)
			if got := items(out.Left); !slices.Equal(got, want) {
				t.Errorf("left %q, want %q", got, want)
			}
		})
	}
}

// copyInto copies the directory or file src to dst.
func copyInto(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
