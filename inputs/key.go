package inputs

import (
	"path/filepath"
	"strings"

	"github.com/actctl/actctl/internal/userkey"
)

// The caches of this package (inputs.rec, config.cache) live in the
// workspace, where an agent working there may write. Each is sealed with
// this user's key (package internal/userkey), which no workspace holds,
// so that an agent that can write files but not read the home (the
// client confines its reads to its roots) cannot make one that passes: a
// file that fails the seal is ignored and rebuilt (docs/design.md, "How
// the caches are protected").

// cacheKey returns the key to seal and check the caches of the workspace
// at root with, kept in home; nil and why when there is none to trust
// (then no cache is taken or written). With create, a missing or
// unusable key is made.
func cacheKey(root, home string, create bool) ([]byte, string) {
	if home == "" {
		return nil, "no actctl home"
	}
	if p := filepath.Join(home, userkey.File); within(root, p) {
		return nil, "the cache key " + p + " would lie inside the workspace, where its agents can read it"
	}
	k, err := userkey.Key(home, create)
	if err != nil {
		return nil, "no usable cache key in the actctl home " + home + ": " + err.Error()
	}
	return k, ""
}

// within reports whether p lies in dir (both clean absolute paths).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
