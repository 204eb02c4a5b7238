package main

import (
	"maps"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// webhookJSON is one webhook of `get webhooks -o json` (docs/json.md):
// the config's fields and the hooks whose event is webhook:NAME.
type webhookJSON struct {
	Name string `json:"name"`
	schema.Webhook
	Hooks []string `json:"hooks"`
}

// listWebhooks lists the webhooks actant.cue declares, each with the
// hooks it feeds (README, "Webhooks").
func listWebhooks(cfg *schema.Config) ([]string, [][]string, any) {
	out := []webhookJSON{}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(cfg.Webhooks)) {
		w := webhookJSON{Name: name, Webhook: cfg.Webhooks[name], Hooks: []string{}}
		for _, h := range slices.Sorted(maps.Keys(cfg.Hooks)) {
			if cfg.Hooks[h].On == schema.EventWebhook+name {
				w.Hooks = append(w.Hooks, h)
			}
		}
		events := "*"
		if len(w.Events) > 0 {
			events = strings.Join(w.Events, ",")
		}
		out = append(out, w)
		rows = append(rows, []string{name, w.Signature, w.SecretEnv, events, dash(strings.Join(w.Hooks, ","))})
	}
	return []string{"NAME", "SIGNATURE", "SECRET ENV", "EVENTS", "HOOKS"}, rows, out
}
