package deploy

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestNamesFollowTheRepository: two clones of one repository in
// directories of other names render identical bytes, with the repository
// given in deploy.kubernetes.repo or taken from the remote origin; the
// names come from the repository's URL ("acme/team.git" -> actctl-team).
func TestNamesFollowTheRepository(t *testing.T) {
	src, err := os.ReadFile("testdata/team/actant.cue")
	if err != nil {
		t.Fatal(err)
	}
	noName := strings.Replace(string(src), "\t\tname:   \"team\"\n", "", 1)
	noRepo := strings.Replace(noName, "\t\trepo: {url: \"https://github.com/acme/team.git\", ref: \"main\"}\n", "", 1)
	if noName == string(src) || noRepo == noName {
		t.Fatal("testdata/team/actant.cue changed: update this test")
	}
	origin := &schema.DeployRepo{URL: "https://github.com/acme/team", Ref: "main"}
	for _, tc := range []struct {
		cfg  string
		repo *schema.DeployRepo
	}{{noName, nil}, {noRepo, origin}} {
		var first []Output
		for _, dir := range []string{"agents", "My_Other_Clone"} {
			root := filepath.Join(t.TempDir(), dir)
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(tc.cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := schema.LoadDir(root, filepath.Join(t.TempDir(), "home"))
			if err != nil {
				t.Fatal(err)
			}
			outs, err := Render(cfg, Options{Repo: tc.repo, Now: goldenNow})
			if err != nil {
				t.Fatal(err)
			}
			ws := outs[0].Files[len(outs[0].Files)-1] // workspace.yaml sorts last
			if !strings.HasSuffix(ws.Path, "workspace.yaml") || !bytes.Contains(ws.Content, []byte("name: actctl-team\n")) {
				t.Errorf("clone %s: not named after the repository:\n%s", dir, ws.Content)
			}
			if first == nil {
				first = outs
				continue
			}
			for i, o := range outs {
				for j, f := range o.Files {
					if f.Path != first[i].Files[j].Path || !bytes.Equal(f.Content, first[i].Files[j].Content) {
						t.Errorf("clone %s renders %s otherwise than clone agents:\n%s", dir, f.Path, f.Content)
					}
				}
			}
		}
	}
}

// TestRepoName: the last path element of the clone URLs git takes.
func TestRepoName(t *testing.T) {
	for u, want := range map[string]string{
		"https://github.com/acme/agents.git": "agents",
		"https://github.com/acme/agents/":    "agents",
		"git@github.com:acme/agents.git":     "agents",
		"git@host:agents":                    "agents",
		"/srv/git/agents":                    "agents",
		"file:///srv/git/My_Agents.git":      "My_Agents",
		"":                                   "",
	} {
		if got := repoName(u); got != want {
			t.Errorf("repoName(%q) = %q, want %q", u, got, want)
		}
	}
}
