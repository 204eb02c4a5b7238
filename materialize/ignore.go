package materialize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// ignore writes the template's ignore lists (docs/formats.md, "Ignore
// files") where the backend reads them: one hash-style block of patterns
// in a gitignore-style file, so the user's own lines stay; or, for
// Claude Code, Read(pattern) rules in permissions.deny. A backend with no
// ignore file gets a warning: the agent can still read those paths.
func (rd *renderer) ignore(f schema.Files) error {
	r := rd.r
	patterns, err := rd.ignorePatterns()
	if err != nil || len(patterns) == 0 {
		return err
	}
	if f.Ignore == nil {
		rd.warn("backend %q has no ignore file: ignore %s of template %q are not written, and the agent can read those paths", r.BackendName, strings.Join(r.Template.Ignore, ", "), r.TemplateName)
		return nil
	}
	switch f.Ignore.Format {
	case schema.IgnoreGitignore:
		return rd.addBlock(f.Ignore.Path, StyleHash, strings.Join(patterns, "\n")+"\n", "ignore")
	case schema.IgnoreClaude:
		return rd.ignoreDeny(f, patterns)
	}
	return fmt.Errorf("backend %q: ignore file %q: unknown format %q (want gitignore or claude)", r.BackendName, f.Ignore.Path, f.Ignore.Format)
}

// ignorePatterns are the patterns of the template's ignore lists, in
// order, each once. A pattern must be one line: a newline would start
// another pattern in the tool's file.
func (rd *renderer) ignorePatterns() ([]string, error) {
	var out []string
	for _, ref := range rd.r.Template.Ignore {
		l, ok := rd.cfg.Ignore[ref]
		if !ok {
			return nil, fmt.Errorf("ignore list %q is not declared", ref)
		}
		for _, p := range l.Patterns {
			if strings.ContainsAny(p, "\r\n") || strings.TrimSpace(p) == "" {
				return nil, fmt.Errorf("ignore list %q: pattern %q is not one line of a gitignore file", ref, p)
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// ignoreDeny turns patterns into Claude Code Read(pattern) deny rules
// (its Read rules follow the gitignore syntax). A negated pattern ("!x")
// re-includes a path in a gitignore file and has no deny rule: it is left
// out with a warning. When the agent's own permission rules write
// permissions.deny into the same file, the permissions step merges them.
func (rd *renderer) ignoreDeny(f schema.Files, patterns []string) error {
	var rules []string
	for _, p := range patterns {
		if strings.HasPrefix(p, "!") {
			rd.warn("ignore pattern %q re-includes a path: Claude Code has no rule for it, it is left out", p)
			continue
		}
		rules = append(rules, "Read("+p+")")
	}
	if len(rules) == 0 {
		return nil
	}
	if rd.sharesDeny(f) {
		rd.denyExtra = rules
		return nil
	}
	return rd.addKeys(f.Ignore.Path, schema.FormatJSON, []Key{key(rules, "permissions", "deny")}, "ignore")
}

// sharesDeny reports whether the agent's permissions write their own
// permissions.deny into the ignore file (Claude's dialect, same file).
func (rd *renderer) sharesDeny(f schema.Files) bool {
	p := f.Permissions
	return p != nil && p.Dialect == schema.DialectClaude && p.Path == f.Ignore.Path && len(rd.r.Permissions.Deny) > 0
}

// withDenyExtra appends the ignore rules held for the permissions step to
// its permissions.deny key.
func (rd *renderer) withDenyExtra(keys []Key) []Key {
	if len(rd.denyExtra) == 0 {
		return keys
	}
	out := slices.Clone(keys)
	for i, k := range out {
		if slices.Equal(k.Path, []string{"permissions", "deny"}) {
			out[i] = key(append(slices.Clone(rd.r.Permissions.Deny), rd.denyExtra...), "permissions", "deny")
		}
	}
	return out
}
