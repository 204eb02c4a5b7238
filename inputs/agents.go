package inputs

import (
	"encoding/json"
	"fmt"
)

// Agents are the agents the last plain apply in the workspace at root
// rendered (Sources.Agents), with what it printed (see Said), when Check
// holds: the plan would be empty, so each is in line with the config, in
// its recorded directory, and the config, unchanged, would resolve its
// runtime record where recorded. Else why not. `status` lists them
// without loading the config (docs/design.md, "The apply fast path").
func Agents(root, home string) ([]Agent, Said, string) {
	rec, _, why := current(root, home)
	if why != "" {
		return nil, Said{}, why
	}
	if why := outputsUnchanged(root, rec); why != "" {
		return nil, Said{}, why
	}
	var agents []Agent
	if err := json.Unmarshal(rec.agents, &agents); err != nil {
		return nil, Said{}, fmt.Sprintf("%s: its agents: %v", path(root), err)
	}
	if len(agents) == 0 {
		return nil, Said{}, "no agents recorded"
	}
	return agents, rec.Said, ""
}
