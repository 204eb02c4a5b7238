package hub

import (
	"fmt"
	"strings"

	"github.com/actctl/actctl/schema"
	"github.com/go-git/go-git/v5/plumbing"
)

// maxListed bounds the tags or branches a not-found error lists.
const maxListed = 8

// notFound says that the remote has no reference name (refs/tags/v1.0.1)
// and lists the tags or branches it has, the nearest to the name first.
func notFound(name string, byName map[string]*plumbing.Reference) error {
	kind, prefix := "tag", "refs/tags/"
	if strings.HasPrefix(name, "refs/heads/") {
		kind, prefix = "branch", "refs/heads/"
	}
	want := strings.TrimPrefix(name, prefix)
	var have []string
	for n := range byName {
		if short, ok := strings.CutPrefix(n, prefix); ok && !strings.HasSuffix(n, "^{}") {
			have = append(have, short)
		}
	}
	if len(have) == 0 {
		return fmt.Errorf("the remote has no %s %s, and no %s at all", kind, want, plural(kind))
	}
	near := schema.Nearest(want, have)
	more := ""
	if len(near) > maxListed {
		more = fmt.Sprintf(" and %d more", len(near)-maxListed)
		near = near[:maxListed]
	}
	return fmt.Errorf("the remote has no %s %s; its %s, nearest first: %s%s", kind, want, plural(kind), strings.Join(near, ", "), more)
}

// plural is the plural of tag or branch.
func plural(kind string) string {
	if kind == "branch" {
		return "branches"
	}
	return kind + "s"
}
