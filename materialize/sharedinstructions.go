package materialize

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/actctl/actctl/schema"
)

// permissionsWord names an agent's permissions for a message: its preset,
// "standard" when nothing is set (actctl answers as that preset does), or
// its own rules, spelled out so that two different rule sets differ.
func permissionsWord(p schema.Permissions) string {
	switch {
	case p.Unset():
		return schema.PresetStandard
	case p.Preset != "" && p.DefaultMode == "" && len(p.Allow)+len(p.Deny)+len(p.Ask)+len(p.AdditionalDirectories) == 0:
		return p.Preset
	}
	b, _ := json.Marshal(p)
	return "rules " + string(b)
}

// sharedInstructions warns, once per instruction file, when agents whose
// permissions differ put their blocks into the same file (AGENTS.md in one
// directory is read whole by every tool there: a readonly reviewer's
// instructions reach the developer's tool, and the developer's reach the
// reviewer). The warning is at the later agent in name order and says how
// to keep them apart (docs/formats.md, "Shared instruction files").
func sharedInstructions(cfg *schema.Config, targets []*Target) schema.Diagnostics {
	type writer struct{ agent, rules string }
	first := map[string]writer{}
	var diags schema.Diagnostics
	for _, t := range targets {
		for _, p := range t.instructions {
			if t.Find(p) == nil {
				continue
			}
			abs := filepath.Join(filepath.Clean(t.Dir), filepath.FromSlash(p))
			w, ok := first[abs]
			if !ok {
				first[abs] = writer{t.Agent, t.rules}
				continue
			}
			if w.rules == t.rules || w.agent == "" {
				continue
			}
			first[abs] = writer{} // once per file
			diags = append(diags, schema.Diagnostic{Pos: cfg.Pos(schema.Path("agents", t.Agent)), Path: schema.Path("agents", t.Agent), Warning: true,
				Message: fmt.Sprintf("%s is shared by agents %q (permissions: %s) and %q (permissions: %s): every tool that reads it sees both agents' instructions; to keep them apart give %s a directory of its own",
					abs, w.agent, w.rules, t.Agent, t.rules, schema.Path("agents", t.Agent, "workDir"))})
		}
	}
	return diags
}
