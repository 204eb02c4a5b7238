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
