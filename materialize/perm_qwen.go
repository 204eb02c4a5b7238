package materialize

import (
	"fmt"

	"github.com/actctl/actctl/schema"
)

// qwenByMode maps a mode onto Qwen Code's tools.approvalMode
// (qwenlm.github.io/qwen-code-docs users/features/approval-mode: plan,
// default, auto-edit, auto, yolo). Qwen Code has no mode that denies
// whatever is not allowed: dontAsk is approximated by plan.
var qwenByMode = map[string]struct {
	mode   string
	approx bool
}{
	claudePlan:        {"plan", false},
	claudeDefault:     {"default", false},
	claudeAcceptEdits: {"auto-edit", false},
	claudeAuto:        {"auto", false},
	claudeBypass:      {"yolo", false},
	claudeDontAsk:     {"plan", true},
}

// qwenPermissions renders p for Qwen Code's settings.json: the mode as
// tools.approvalMode, the rules as permissions.allow/ask/deny, which
// take Claude Code's Tool(pattern) form (rulesync qwencode-permissions.ts;
// docs/formats.md, "qwen"). Additional directories are warned about.
func qwenPermissions(mode string, p schema.Permissions) ([]Key, []string) {
	var warns []string
	if mode == "" {
		mode = claudeDefault
	}
	q := qwenByMode[mode]
	if q.approx {
		warns = append(warns, fmt.Sprintf("permission mode %s has no Qwen Code setting; approximated by tools.approvalMode %q", mode, q.mode))
	}
	keys := []Key{key(q.mode, "tools", "approvalMode")}
	for _, l := range []struct {
		name  string
		rules []string
	}{{"allow", p.Allow}, {"ask", p.Ask}, {"deny", p.Deny}} {
		if len(l.rules) > 0 {
			keys = append(keys, key(l.rules, "permissions", l.name))
		}
	}
	if len(p.AdditionalDirectories) > 0 {
		warns = append(warns, "permissions.additionalDirectories cannot be expressed for qwen; the agent gets its workspace only")
	}
	return keys, warns
}
