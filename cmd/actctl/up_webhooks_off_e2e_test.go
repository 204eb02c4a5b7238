//go:build unix

package main

import (
	"strings"
	"testing"
)

// TestUpWebhooksNotServedNote: up without --webhooks, in a workspace that
// declares webhooks, says once that they are not served and how to serve
// them (a new user's curl otherwise finds no listener and no word why).
func TestUpWebhooksNotServedNote(t *testing.T) {
	root, home := webhookWorkspace(t)
	p := startUp(t, root, home, "--ui", "off")
	p.waitLine(`control socket`)
	out := p.stop()
	want := "actctl: up: actant.cue declares webhooks (gh) but up serves none: give --webhooks ADDR (127.0.0.1:8787) to serve them"
	if strings.Count(out, want) != 1 {
		t.Errorf("up's log:\n%s\nwant once %q", out, want)
	}
}
