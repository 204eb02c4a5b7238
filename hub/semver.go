package hub

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/actctl/actctl/schema"
)

// refSpec is a source's ref in one piece: Kind is branch, tag, commit,
// semver, or "" for the remote's default branch.
type refSpec struct{ Kind, Value string }

func refOf(r *schema.Ref) refSpec {
	switch {
	case r == nil:
		return refSpec{}
	case r.Branch != "":
		return refSpec{"branch", r.Branch}
	case r.Tag != "":
		return refSpec{"tag", r.Tag}
	case r.Commit != "":
		return refSpec{"commit", r.Commit}
	case r.Semver != "":
		return refSpec{"semver", r.Semver}
	}
	return refSpec{}
}

func (r refSpec) String() string {
	if r.Kind == "" {
		return "default branch"
	}
	return r.Kind + " " + r.Value
}

func refEqual(a, b *schema.Ref) bool { return refOf(a) == refOf(b) }

// pickSemver returns the highest tag satisfying constraint. Tags may carry
// a leading "v" or not. The constraint is one or more space-separated
// terms, all of which must hold: "1.2.3" or "=1.2.3" (exact), "1" / "1.2" /
// "1.x" / "1.2.x" (that release line), "^1.2.3" (same major; same minor
// for 0.x), "~1.2.3" (same minor), ">=1.2", ">1", "<=2", "<2.0.0", and
// "*" or "latest". Prereleases are only picked when the constraint itself
// names a prerelease.
func pickSemver(constraint string, tags []string) (string, error) {
	terms := strings.Fields(strings.ReplaceAll(constraint, ",", " "))
	if len(terms) == 0 {
		return "", fmt.Errorf("empty semver constraint")
	}
	var checks []func(string) bool
	wantPre := false
	for _, t := range terms {
		c, pre, err := semverTerm(t)
		if err != nil {
			return "", fmt.Errorf("semver constraint %q: %w", constraint, err)
		}
		wantPre = wantPre || pre
		checks = append(checks, c)
	}
	var ok []string
	for _, tag := range tags {
		v := "v" + strings.TrimPrefix(tag, "v")
		if !semver.IsValid(v) || (semver.Prerelease(v) != "" && !wantPre) {
			continue
		}
		all := true
		for _, c := range checks {
			if !c(v) {
				all = false
				break
			}
		}
		if all {
			ok = append(ok, tag)
		}
	}
	if len(ok) == 0 {
		return "", fmt.Errorf("no tag matches semver %q", constraint)
	}
	sort.Slice(ok, func(i, j int) bool {
		a, b := "v"+strings.TrimPrefix(ok[i], "v"), "v"+strings.TrimPrefix(ok[j], "v")
		if c := semver.Compare(a, b); c != 0 {
			return c > 0
		}
		return ok[i] > ok[j]
	})
	return ok[0], nil
}

// semverTerm compiles one constraint term; pre reports whether it names
// a prerelease.
func semverTerm(t string) (check func(string) bool, pre bool, err error) {
	if t == "*" || t == "latest" || t == "x" {
		return func(string) bool { return true }, false, nil
	}
	op, t := splitTerm(t)
	v := "v" + strings.TrimPrefix(t, "v")
	if !semver.IsValid(v) {
		return nil, false, fmt.Errorf("%q is not a version", t)
	}
	return termCheck(op, v), semver.Prerelease(v) != "", nil
}

// splitTerm splits a term into its operator ("" for none) and its
// version, without a wildcard suffix (1.x, 1.2.*).
func splitTerm(t string) (op, version string) {
	for _, o := range []string{">=", "<=", ">", "<", "=", "^", "~"} {
		if strings.HasPrefix(t, o) {
			op, t = o, t[len(o):]
			break
		}
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, ".x"), ".*")
	return op, strings.TrimSuffix(t, ".x")
}

// termCheck is the check of operator op against the valid version v, which
// may name a release line (v1, v1.2).
func termCheck(op, v string) func(string) bool {
	parts := strings.Count(strings.SplitN(strings.TrimPrefix(v, "v"), "-", 2)[0], ".") + 1
	full := semver.Canonical(v) // fills missing minor/patch with 0
	cmp := func(x string) int { return semver.Compare(x, full) }
	// prefix reports whether x is in the release line v names (1 or 1.2).
	prefix := func(x string) bool {
		if parts == 1 {
			return semver.Major(x) == semver.Major(v)
		}
		return semver.MajorMinor(x) == semver.MajorMinor(v)
	}
	switch {
	case op == ">=":
		return func(x string) bool { return cmp(x) >= 0 }
	case op == ">" && parts < 3: // ">1" means above the whole 1.x line
		return func(x string) bool { return cmp(x) > 0 && !prefix(x) }
	case op == ">":
		return func(x string) bool { return cmp(x) > 0 }
	case op == "<=" && parts < 3:
		return func(x string) bool { return cmp(x) <= 0 || prefix(x) }
	case op == "<=":
		return func(x string) bool { return cmp(x) <= 0 }
	case op == "<":
		return func(x string) bool { return cmp(x) < 0 }
	case op == "^":
		return caret(full)
	case op == "~":
		return func(x string) bool { return cmp(x) >= 0 && semver.MajorMinor(x) == semver.MajorMinor(full) }
	case parts < 3:
		return prefix
	}
	return func(x string) bool { return semver.Compare(x, v) == 0 }
}

// caret is "^full": at least full, in its major line (its minor line for
// 0.x).
func caret(full string) func(string) bool {
	return func(x string) bool {
		if semver.Compare(x, full) < 0 {
			return false
		}
		if semver.Major(full) == "v0" {
			return semver.MajorMinor(x) == semver.MajorMinor(full)
		}
		return semver.Major(x) == semver.Major(full)
	}
}
