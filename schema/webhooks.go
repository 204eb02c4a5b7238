package schema

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// webhookName is a webhook's name: a URL-safe word, its path segment.
var webhookName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)
})

// validateWebhooks checks the webhooks' names (the CUE schema checks
// their fields).
func (c *Config) validateWebhooks() Diagnostics {
	var ds Diagnostics
	for _, name := range slices.Sorted(maps.Keys(c.Webhooks)) {
		if !webhookName().MatchString(name) {
			ds = append(ds, c.Diag(Path("webhooks", name), "invalid webhook name %q: a webhook's name is its URL path segment, 1-63 characters of a-z, 0-9, '_' and '-', starting with a letter or digit", name))
		}
		w := c.Webhooks[name]
		if w.Events != nil && len(w.Events) == 0 {
			// [] would take every event, as no list does: never what is
			// meant (docs/runtime.md, "Webhooks").
			ds = append(ds, c.Diag(Path("webhooks", name, "events"), "an empty list is not \"no event\": omit events to take every event, or list the event types to take"))
		}
		if w.Header != "" && w.Signature != SignatureHMAC {
			ds = append(ds, c.Diag(Path("webhooks", name, "header"), "header is for signature %q (GitHub's is always X-Hub-Signature-256); drop it", SignatureHMAC))
		}
	}
	return ds
}

// checkWebhookEvent checks that event, webhook:NAME, names a declared
// webhook.
func (c *Config) checkWebhookEvent(path, event string) (Diagnostic, bool) {
	name := strings.TrimPrefix(event, EventWebhook)
	if _, ok := c.Webhooks[name]; ok {
		return Diagnostic{}, true
	}
	declared := slices.Sorted(maps.Keys(c.Webhooks))
	msg := fmt.Sprintf("unknown webhook %q in event %q", name, event)
	if s := suggest(name, declared); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", EventWebhook+s)
	}
	if len(declared) == 0 {
		msg += "; declare it under webhooks (webhooks: " + name + ": {secretEnv: ..., signature: \"github\"})"
	}
	return c.Diag(path, "%s", msg), false
}
