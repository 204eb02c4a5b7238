package hub

import (
	"testing"
	"time"

	"github.com/actctl/actctl/schema"
)

// TestCheckOptions: a frozen run refuses a stale lock, and `hub update`
// refuses a source the config does not declare, suggesting a near one.
func TestCheckOptions(t *testing.T) {
	hub := map[string]schema.HubSource{"team": {URL: "https://example.com/team.git"}}
	for _, tc := range []struct {
		name string
		o    Options
		why  string
		want string // "" is no error
	}{
		{"current lock", Options{Frozen: true}, "", ""},
		{"stale, not frozen", Options{}, "actant.lock is missing", ""},
		{"stale, frozen", Options{Frozen: true}, "actant.lock is missing", "--frozen: actant.lock is missing (run `actctl hub sync` and commit actant.lock)"},
		{"known update", Options{Update: []string{"team"}}, "", ""},
		{"unknown update", Options{Update: []string{"teams"}}, "", `unknown hub source "teams" (did you mean "team"?)`},
		{"unknown update, nothing near", Options{Update: []string{"zzzzzz"}}, "", `unknown hub source "zzzzzz"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkOptions(tc.o, tc.why, hub)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("checkOptions = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLockedAt: a re-resolved entry keeps its stamp when nothing moved
// (the lock stays byte-identical), and is stamped now, in UTC seconds,
// otherwise.
func TestLockedAt(t *testing.T) {
	src := schema.HubSource{URL: "https://example.com/team.git", Ref: &schema.Ref{Branch: "main"}}
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := time.Date(2026, 6, 1, 12, 0, 0, 999, time.FixedZone("x", 3600))
	nowUTC := time.Date(2026, 6, 1, 11, 0, 0, 0, time.UTC)
	entry := LockedSource{URL: src.URL, Ref: src.Ref, Commit: "c1", Digest: "d1", Resolved: "refs/heads/main"}
	prev := entry
	prev.LockedAt = then
	moved := func(f func(*LockedSource)) *LockedSource { p := prev; f(&p); return &p }
	for _, tc := range []struct {
		name string
		prev *LockedSource
		want time.Time
	}{
		{"new source", nil, nowUTC},
		{"nothing moved", &prev, then},
		{"commit moved", moved(func(p *LockedSource) { p.Commit = "c0" }), nowUTC},
		{"digest moved", moved(func(p *LockedSource) { p.Digest = "d0" }), nowUTC},
		{"resolved moved", moved(func(p *LockedSource) { p.Resolved = "refs/tags/v1" }), nowUTC},
		{"config moved", moved(func(p *LockedSource) { p.URL = "https://example.com/other.git" }), nowUTC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lockedAt(tc.prev, entry, src, now); !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Errorf("lockedAt = %v, want %v (UTC)", got, tc.want)
			}
		})
	}
}

// TestUnknownRef: the message of an undeclared reference suggests the
// nearest name of its source, says when the source has no such component,
// and names a reference with no component after "src@".
func TestUnknownRef(t *testing.T) {
	hub := map[string]schema.HubSource{"team": {}}
	declared := []string{"team@review", "team@deploy", "other@lint", "local-skill"}
	for _, tc := range []struct{ ref, want string }{
		{"team@reviwe", `unknown skill "team@reviwe" (did you mean "team@review"?)`},
		{"team@zzzzzzzz", `unknown skill "team@zzzzzzzz" (hub source "team" has no such skill)`},
		{"gone@review", `unknown skill "gone@review"`},
		{"team@", `skill "team@": no component name after "team@"`},
		{"other@lnit", `unknown skill "other@lnit" (did you mean "other@lint"?)`},
	} {
		if got := unknownRef(hub, "skill", tc.ref, declared); got != tc.want {
			t.Errorf("unknownRef(%q) = %q, want %q", tc.ref, got, tc.want)
		}
	}
}

// TestSemverTerm: each operator of a semver constraint term, on a full
// version and on a release line, and the refusal of a non-version.
func TestSemverTerm(t *testing.T) {
	for _, tc := range []struct {
		term, version string
		want          bool
	}{
		{">=1.2.0", "v1.2.0", true}, {">=1.2.0", "v1.1.9", false},
		{">1", "v1.9.0", false}, {">1", "v2.0.0", true}, {">1.2.3", "v1.2.4", true},
		{"<=1", "v1.9.0", true}, {"<=1", "v2.0.0", false}, {"<=1.2.3", "v1.2.4", false},
		{"<2", "v1.9.9", true}, {"<2", "v2.0.0", false},
		{"^1.2.0", "v1.9.0", true}, {"^1.2.0", "v2.0.0", false}, {"^1.2.0", "v1.1.0", false},
		{"^0.2.1", "v0.2.5", true}, {"^0.2.1", "v0.3.0", false},
		{"~1.2.0", "v1.2.9", true}, {"~1.2.0", "v1.3.0", false},
		{"1.x", "v1.4.0", true}, {"1.2.*", "v1.2.7", true}, {"1.2", "v1.3.0", false},
		{"=1.2.3", "v1.2.3", true}, {"v1.2.3", "v1.2.4", false},
		{"*", "v9.0.0", true}, {"latest", "v0.0.1", true},
	} {
		check, _, err := semverTerm(tc.term)
		if err != nil {
			t.Errorf("semverTerm(%q): %v", tc.term, err)
			continue
		}
		if got := check(tc.version); got != tc.want {
			t.Errorf("semverTerm(%q)(%s) = %v, want %v", tc.term, tc.version, got, tc.want)
		}
	}
	if _, pre, _ := semverTerm(">=1.2.0-rc.1"); !pre {
		t.Error("a prerelease term does not say so")
	}
	if _, _, err := semverTerm("^v1.z"); err == nil || err.Error() != `"v1.z" is not a version` {
		t.Errorf("semverTerm(^v1.z) err = %v", err)
	}
}
