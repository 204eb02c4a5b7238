package schema

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHookOnMisspelledWebhook: an event misspelled near a declared
// webhook's (webhooks:gh, webhok:gh) suggests webhook:gh, at its position.
func TestHookOnMisspelledWebhook(t *testing.T) {
	for _, on := range []string{"webhooks:gh", "webhok:gh"} {
		dir := writeWorkspace(t, map[string]string{"actant.cue": hooksBase + `webhooks: gh: {secretEnv: "GH", signature: "github"}
hooks: x: {on: "` + on + `", run: command: "true"}
`})
		_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
		want := `actant.cue:6:16: hooks.x.on: unknown event "` + on + `" (did you mean "webhook:gh"?)`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("on %s:\ngot  %v\nwant %s", on, err, want)
		}
	}
}
