package reconcile

import (
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
)

// TestOriginRepo: the repository pods clone by default is the remote
// "origin" of the repository holding the workspace, at its branch;
// none without a remote or a repository.
func TestOriginRepo(t *testing.T) {
	dir := t.TempDir()
	if r := originRepo(dir); r != nil {
		t.Fatalf("no repository: %+v", r)
	}
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if r := originRepo(dir); r != nil {
		t.Fatalf("no remote: %+v", r)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"https://example.com/team.git"}}); err != nil {
		t.Fatal(err)
	}
	r := originRepo(dir)
	if r == nil || r.URL != "https://example.com/team.git" || r.Ref == "" {
		t.Fatalf("origin: %+v", r)
	}
}
