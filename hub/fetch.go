package hub

import (
	"context"
	"fmt"
	"os"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// fetchCommit fetches until commit is present: shallow first (the named
// ref, depth 1) where the ref allows, then the full history.
func (e *ensurer) fetchCommit(ctx context.Context, repo *git.Repository, fo fetchOpts, ref refSpec, commit plumbing.Hash, spec ...config.RefSpec) error {
	if len(spec) == 0 && (ref.Kind == "branch" || ref.Kind == "tag") {
		name := "refs/heads/" + ref.Value
		if ref.Kind == "tag" {
			name = "refs/tags/" + ref.Value
		}
		spec = []config.RefSpec{config.RefSpec("+" + name + ":" + localName(name))}
	}
	if len(spec) > 0 {
		err := fetch(ctx, repo, fo, spec, true)
		if err == nil && hasCommit(repo, commit) {
			return nil
		}
		if isNetErr(err) {
			return fmt.Errorf("fetch: %w", err)
		}
	}
	if err := e.fetchFull(ctx, repo, fo); err != nil {
		return err
	}
	if !hasCommit(repo, commit) {
		return fmt.Errorf("commit %s is not in the repository (was it force-pushed away? run `actctl hub update` to re-resolve the ref)", commit)
	}
	return nil
}

// fetchFull fetches every branch and tag with full history. A cache made
// shallow by earlier fetches is rebuilt from scratch: go-git cannot always
// deepen a shallow repository.
func (e *ensurer) fetchFull(ctx context.Context, repo *git.Repository, fo fetchOpts) error {
	if sh, _ := repo.Storer.Shallow(); len(sh) > 0 {
		if err := resetRepo(repo, fo.RepoDir); err != nil {
			return err
		}
	}
	err := fetch(ctx, repo, fo, fullSpecs, false)
	if err == nil {
		return nil
	}
	if isNetErr(err) {
		return fmt.Errorf("fetch: %w", err)
	}
	if rerr := resetRepo(repo, fo.RepoDir); rerr != nil {
		return rerr
	}
	if err := fetch(ctx, repo, fo, fullSpecs, false); err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	return nil
}

// fetchBareCommit fetches the full history and resolves a (possibly
// abbreviated) commit hash: servers do not serve unadvertised commits.
func (e *ensurer) fetchBareCommit(ctx context.Context, repo *git.Repository, fo fetchOpts, want string) (resolved, error) {
	if len(want) == 40 && hasCommit(repo, plumbing.NewHash(want)) {
		return resolved{Commit: plumbing.NewHash(want)}, nil
	}
	e.progress("hub: fetching full history of %s for commit %s", redactURL(fo.URL), want)
	if err := e.fetchFull(ctx, repo, fo); err != nil {
		return resolved{}, err
	}
	h, err := repo.ResolveRevision(plumbing.Revision(want))
	if err != nil || !hasCommit(repo, *h) {
		return resolved{}, fmt.Errorf("commit %s is not in the repository", want)
	}
	return resolved{Commit: *h}, nil
}

// resetRepo recreates the cache repository in dir (under the cache lock).
func resetRepo(repo *git.Repository, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("reset cache repository: %w", err)
	}
	nr, err := git.PlainInit(dir, true)
	if err != nil {
		return fmt.Errorf("reset cache repository: %w", err)
	}
	*repo = *nr
	return nil
}
