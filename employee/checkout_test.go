package employee

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commit writes README with text in repo's work tree and commits it.
func commit(t *testing.T, repo *git.Repository, dir, text string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("README"); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit(text, &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1e9, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

func readme(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "README"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckoutSync: a clone at a branch, then a fetch that moves it and
// resets an edit; a tag and a commit; a ref that names nothing; a dir
// that holds something else is refused and left alone.
func TestCheckoutSync(t *testing.T) {
	src := t.TempDir()
	repo, err := git.PlainInit(src, false)
	if err != nil {
		t.Fatal(err)
	}
	first := commit(t, repo, src, "one")
	head, _ := repo.Head()
	branch := head.Name().Short()
	if _, err := repo.CreateTag("v1", head.Hash(), nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ws", "checkout")
	co := &Checkout{URL: src, Ref: branch, Dir: dir}
	ctx := context.Background()
	if h, err := co.Sync(ctx); err != nil || h != first || readme(t, dir) != "one" {
		t.Fatalf("clone: %s, %v, %q", h, err, readme(t, dir))
	}
	second := commit(t, repo, src, "two")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := co.Sync(ctx); err != nil || h != second || readme(t, dir) != "two" {
		t.Fatalf("fetch: %s, %v, %q", h, err, readme(t, dir))
	}
	for _, ref := range []string{"v1", first} {
		co.Ref = ref
		if h, err := co.Sync(ctx); err != nil || h != first || readme(t, dir) != "one" {
			t.Errorf("ref %s: %s, %v", ref, h, err)
		}
	}
	co.Ref = "nope"
	if _, err := co.Sync(ctx); err == nil || !strings.Contains(err.Error(), `ref "nope" is no branch, tag or commit of it`) {
		t.Errorf("nope: %v", err)
	}
	other := &Checkout{URL: t.TempDir(), Ref: branch, Dir: dir}
	if _, err := other.Sync(ctx); err == nil || !strings.Contains(err.Error(), "is a clone of another repository") {
		t.Errorf("another repository: %v", err)
	}
	plain := filepath.Join(t.TempDir(), "notes")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Checkout{URL: src, Ref: branch, Dir: plain}).Sync(ctx); err == nil || !strings.Contains(err.Error(), "is no git clone") {
		t.Errorf("a plain dir: %v", err)
	}
	if _, err := os.Stat(plain); err != nil {
		t.Errorf("the plain dir was removed: %v", err)
	}
	if readme(t, dir) != "one" {
		t.Error("a refused sync changed the checkout")
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if _, err := (&Checkout{URL: filepath.Join(t.TempDir(), "none"), Ref: branch, Dir: fresh}).Sync(ctx); err == nil || !strings.Contains(err.Error(), "checkout: clone ") {
		t.Errorf("a missing repository: %v", err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a failed clone left %s: %v", fresh, err)
	}
}

// TestCheckoutSymlinks: the checkout keeps the repository's symlinks as
// they are, an absolute one included (go-git's default file system
// rewrote it to point into the checkout: what the agent read differed
// from the repository), on the clone and on a later sync (issue #30 item
// 13).
func TestCheckoutSymlinks(t *testing.T) {
	src := t.TempDir()
	repo, err := git.PlainInit(src, false)
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"abs": "/nonexistent/actctl-target", "rel": "docs/guide.md", "sub/up": "../README"}
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	// go-git's default file system reads an absolute link relative to
	// its root: the links are added through the bound one.
	wt, err := worktree(repo, src)
	if err != nil {
		t.Fatal(err)
	}
	for name := range links {
		if _, err := wt.Add(name); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, repo, src, "one")
	head, _ := repo.Head()
	dir := filepath.Join(t.TempDir(), "checkout")
	co := &Checkout{URL: src, Ref: head.Name().Short(), Dir: dir}
	for _, step := range []string{"clone", "sync"} {
		if step == "sync" {
			commit(t, repo, src, "two")
		}
		if _, err := co.Sync(context.Background()); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		for name, want := range links {
			if got, err := os.Readlink(filepath.Join(dir, name)); err != nil || got != want {
				t.Errorf("%s: %s -> %q (%v), want %q as the repository has it", step, name, got, err, want)
			}
		}
	}
}
