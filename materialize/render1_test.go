package materialize

import "github.com/actctl/actctl/schema"

// Render is RenderAgents for the one agent r, without the checks between
// agents and with its error as an error, not a diagnostic.
func Render(cfg *schema.Config, r *schema.Resolved, o Options) (*Target, error) {
	return renderWith(cfg, r, o, newShared())
}
