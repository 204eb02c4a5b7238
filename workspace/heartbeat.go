package workspace

import (
	"maps"
	"slices"

	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/schema"
)

// seedHeartbeats seeds the file .heartbeat in the workspace of every
// employee with a heartbeat that an apply of cfg just materialized (all
// of them, or those in only): from schedule.heartbeat.prompt, when the
// file does not exist, never over it (the agent owns it; docs/runtime.md).
// `actctl up` seeds it too, for a workspace it finds without one.
func seedHeartbeats(o Options, cfg *schema.Config, only []string) {
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		if len(only) > 0 && !slices.Contains(only, name) {
			continue
		}
		r, err := cfg.Resolve(name)
		if err != nil || r.ArchetypeName != schema.ArchEmployee || r.Template.Schedule == nil || r.Template.Schedule.Heartbeat == nil {
			continue
		}
		if _, err := schedule.SeedHeartbeat(r.Dir, r.Template.Schedule.Heartbeat.Prompt); err != nil {
			o.warn("%s: %v", name, err)
		}
	}
}
