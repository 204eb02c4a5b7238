package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWebhookEmptyEventsE2E: webhooks.NAME.events: [] is refused at its
// position by validate and apply, and nothing is written (new-user review
// item 6).
func TestWebhookEmptyEventsE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
webhooks: gh: {secretEnv: "GH_SECRET", signature: "github", events: []}
`)
	want := `actant.cue:2:69: webhooks.gh.events: an empty list is not "no event": omit events to take every event`
	for _, cmd := range []string{"validate", "apply"} {
		if r := actctl(t, dir, home, cmd); r.Code != 1 || !strings.Contains(r.Stderr, want) {
			t.Errorf("%s: exit %d\n%s\nwant %s", cmd, r.Code, r.Stderr, want)
		}
	}
	if got := listFiles(t, dir); !slices.Equal(got, []string{"actant.cue"}) {
		t.Errorf("written: %v", got)
	}
}
