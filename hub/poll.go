package hub

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/actctl/actctl/schema"
)

// Poll asks the remote of source where its ref points now (one ls-remote,
// no clone) and reports whether that differs from the commit pinned in
// actant.lock. `apply --watch` polls sources that have an interval; when
// one moved it re-resolves it with Ensure(Options{Update: [source]}).
// A commit ref never moves.
func Poll(ctx context.Context, cfg *schema.Config, source string) (moved bool, err error) {
	src, ok := cfg.Hub[source]
	if !ok {
		return false, fmt.Errorf("hub source %q is not declared", source)
	}
	fail := func(err error) (bool, error) { return false, sourceError(cfg, source, err) }
	ref := refOf(src.Ref)
	if ref.Kind == "commit" {
		return false, nil
	}
	lock, err := ReadLock(filepath.Join(cfg.Root, LockFile))
	if err != nil {
		return false, err
	}
	e := &ensurer{cfg: cfg}
	u := e.gitURL(src.URL)
	auth, err := authFor(src, u)
	if err != nil {
		return fail(err)
	}
	refs, err := listRemote(ctx, u, auth)
	if err != nil {
		return fail(fmt.Errorf("unreachable: %w", err))
	}
	res, err := resolveRemote(refs, ref)
	if err != nil {
		return fail(err)
	}
	prev, ok := lock.Sources[source]
	return !ok || prev.Commit != res.Commit.String(), nil
}
