package employee

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/model"
)

// DefaultCheckoutDir is where an agent's checkout goes in its workspace
// when checkout.dir is not given.
const DefaultCheckoutDir = "checkout"

// Checkout is an employee's repository: URL at Ref (a branch, a tag or a
// commit) in Dir, an absolute directory of its workspace (docs/runtime.md,
// "Checkout").
type Checkout struct{ URL, Ref, Dir string }

// CheckoutOf is agent r's checkout (nil when it has none): a relative
// local URL is taken from the workspace root, dir from the agent's
// workspace (default DefaultCheckoutDir).
func CheckoutOf(root string, r *model.Resolved) *Checkout {
	co := r.Agent.Checkout
	if co == nil {
		return nil
	}
	dir := co.Dir
	if dir == "" {
		dir = DefaultCheckoutDir
	}
	return &Checkout{URL: localURL(root, co.URL), Ref: co.Ref, Dir: filepath.Join(r.Dir, filepath.FromSlash(dir))}
}

// CheckoutCwd makes co's dir the session cwd of a client started with o
// (the archetype's workspace policy aside; the workspace stays a root of
// the client's file system). Nothing when co is nil.
func CheckoutCwd(o *acpclient.Options, co *Checkout) {
	if co == nil {
		return
	}
	o.ClientCwd = co.Dir
	o.Launch.SessionCwd = model.CwdClient
}

// localURL makes a relative local path absolute from root; any other URL
// is left as it is.
func localURL(root, u string) string {
	if ep, err := transport.NewEndpoint(u); err == nil && ep.Protocol != "file" {
		return u
	}
	if strings.HasPrefix(u, "file://") || filepath.IsAbs(u) {
		return u
	}
	return filepath.Join(root, u)
}

// Sync makes Dir a clone of URL whose work tree is at Ref: cloned when
// Dir does not exist, else fetched (branches as origin's, tags) and reset
// to Ref: what the agent did not commit and push is gone, as in a CI
// checkout. Symlinks are kept as the repository has them (an absolute
// one too), and nothing is written through one out of Dir. It returns
// the commit checked out.
func (c *Checkout) Sync(ctx context.Context) (string, error) {
	repo, err := c.open(ctx)
	if err != nil {
		return "", err
	}
	err = repo.FetchContext(ctx, &git.FetchOptions{RemoteName: "origin", Force: true, Tags: git.AllTags,
		RefSpecs: []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"}})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return "", fmt.Errorf("checkout %s: fetch: %w", c.URL, err)
	}
	h, err := c.resolve(repo)
	if err != nil {
		return "", err
	}
	wt, err := worktree(repo, c.Dir)
	if err != nil {
		return "", fmt.Errorf("checkout %s: %w", c.Dir, err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Hash: h, Force: true}); err != nil {
		return "", fmt.Errorf("checkout %s at %s: %w", c.URL, c.Ref, err)
	}
	return h.String(), nil
}

// worktree is repo's work tree in dir on go-billy's bound file system:
// go-git's default one (a chroot) rewrites an absolute symlink's target
// to lie under dir, so the agent would read another file than the
// repository names; the bound one writes links as the repository has
// them and follows none out of dir. go-git's own checks of the paths it
// writes wrap it as they wrap the default.
func worktree(repo *git.Repository, dir string) (*git.Worktree, error) {
	r, err := git.Open(repo.Storer, osfs.New(dir, osfs.WithBoundOS()))
	if err != nil {
		return nil, err
	}
	return r.Worktree()
}

// open opens the clone in Dir, or makes one (no checkout yet: Sync's
// reset does it). A Dir that holds something else is refused.
func (c *Checkout) open(ctx context.Context) (*git.Repository, error) {
	if _, err := os.Stat(c.Dir); errors.Is(err, os.ErrNotExist) {
		repo, err := git.PlainCloneContext(ctx, c.Dir, false, &git.CloneOptions{URL: c.URL, NoCheckout: true})
		if err != nil {
			os.RemoveAll(c.Dir)
			return nil, fmt.Errorf("checkout: clone %s: %w", c.URL, err)
		}
		return repo, nil
	}
	repo, err := git.PlainOpen(c.Dir)
	if err != nil {
		return nil, fmt.Errorf("checkout: %s exists and is no git clone (%v): remove it, or give checkout.dir another directory", c.Dir, err)
	}
	rem, err := repo.Remote("origin")
	if err != nil || len(rem.Config().URLs) == 0 || rem.Config().URLs[0] != c.URL {
		return nil, fmt.Errorf("checkout: %s is a clone of another repository than %s: remove it, or give checkout.dir another directory", c.Dir, c.URL)
	}
	return repo, nil
}

// resolve finds Ref: origin's branch, a tag, then a commit.
func (c *Checkout) resolve(repo *git.Repository) (plumbing.Hash, error) {
	for _, name := range []plumbing.ReferenceName{plumbing.NewRemoteReferenceName("origin", c.Ref), plumbing.NewTagReferenceName(c.Ref)} {
		if ref, err := repo.Reference(name, true); err == nil {
			if tag, err := repo.TagObject(ref.Hash()); err == nil { // an annotated tag
				if cm, err := tag.Commit(); err == nil {
					return cm.Hash, nil
				}
			}
			return ref.Hash(), nil
		}
	}
	if plumbing.IsHash(c.Ref) {
		h := plumbing.NewHash(c.Ref)
		if _, err := repo.CommitObject(h); err == nil {
			return h, nil
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("checkout %s: ref %q is no branch, tag or commit of it", c.URL, c.Ref)
}
