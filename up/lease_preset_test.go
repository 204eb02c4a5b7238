package up

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
)

// TestLeasePresetBindsEditor: an editor on a lease that serves writes and
// terminals gets only the agent's requests the preset allows; actctl
// answers the others with its refusal and they never reach the editor: a
// readonly service writes nothing and runs nothing, a standard one writes
// but runs nothing and never writes a protected path (issue #30 item 6).
func TestLeasePresetBindsEditor(t *testing.T) {
	caps := acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}
	for _, tc := range []struct {
		preset         acpclient.Rule
		write, term    string // what the agent hears
		servedByEditor []string
	}{
		{acpclient.AllowReads, "actctl refuses fs/write_text_file", "actctl refuses terminal/create", nil},
		{acpclient.AllowEdits, "wrote", "actctl refuses terminal/create", []string{"write NOTES"}},
		{acpclient.AllowAll, "wrote", "terminal: exit 0", []string{"write NOTES", "terminal sh"}},
	} {
		t.Run(string(tc.preset), func(t *testing.T) {
			h := newHarness(t, nil)
			h.preset = tc.preset
			h.m.Sync([]Spec{service(t, "api")})
			h.wait("process:start", "api")
			editor := h.leaseWith("api", "yes", caps)
			cwd := t.TempDir()
			notes, git, viaLink := filepath.Join(cwd, "notes.txt"), filepath.Join(cwd, ".git", "config"), filepath.Join(cwd, "gitlink", "hooks", "pre-commit")
			if err := os.Mkdir(filepath.Join(cwd, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(".git", filepath.Join(cwd, "gitlink")); err != nil {
				t.Fatal(err)
			}
			sid := editor.newSession(t, cwd)
			for _, p := range []string{"write " + notes + " hi", "write " + git + " pwned", "term echo hi", "write " + viaLink + " pwned"} {
				if _, err := editor.prompt(sid, p); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
			}
			said := editor.said(sid)
			lines := strings.Split(said, "\n")
			if !strings.Contains(lines[0], tc.write) || !strings.Contains(lines[2], tc.term) {
				t.Errorf("the agent heard:\n%s\nwant %q then %q", said, tc.write, tc.term)
			}
			if tc.preset != acpclient.AllowReads && (!strings.Contains(lines[1], git+": actctl's client never writes there") || !strings.Contains(lines[3], "it is inside .git/")) {
				t.Errorf("a protected write passed on:\n%s", said)
			}
			editor.mu.Lock()
			served := strings.Join(editor.served, "\n")
			editor.mu.Unlock()
			want := strings.ReplaceAll(strings.Join(tc.servedByEditor, "\n"), "NOTES", notes)
			if served != want {
				t.Errorf("the editor served:\n%s\nwant:\n%s", served, want)
			}
			for _, p := range []string{notes, git, viaLink} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s written on disk", p)
				}
			}
		})
	}
}
