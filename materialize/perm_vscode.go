package materialize

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/actctl/actctl/schema"
)

// vscodePermissions renders p for GitHub Copilot in VS Code: its
// workspace settings' "chat.tools.terminal.autoApprove" maps a command to
// true (run without asking) or false (always ask), a plain key matching
// the command line's start and a /regex/ key the whole
// (code.visualstudio.com/docs/agents/approvals; rulesync
// copilot-permissions.ts writes the same key). Bash(cmd:*) becomes "cmd",
// Bash(cmd) the anchored regex of cmd; an allow rule is true, ask is
// false, and deny is false too: VS Code cannot refuse a command, so a
// denied one is asked for (warning). The preset's mode and other tools'
// rules have no workspace setting actctl writes (warning; VS Code's
// permission level is the user's choice in its chat view).
func vscodePermissions(mode string, p schema.Permissions) ([]Key, []string) {
	var warns []string
	if mode != "" {
		warns = append(warns, fmt.Sprintf("permission mode %s has no VS Code workspace setting actctl writes (the permission level is chosen in VS Code's chat view); only terminal command rules are written", mode))
	}
	approve := map[string]bool{}
	set := func(rules []string, v bool, what string) {
		for _, r := range rules {
			k, w := vscodeCommand(r)
			if w != "" {
				warns = append(warns, w)
				continue
			}
			if what == "deny" {
				warns = append(warns, fmt.Sprintf("permission rule %q: VS Code cannot refuse a terminal command; it is written as always asking (%q: false)", r, k))
			}
			if old, ok := approve[k]; !ok || old {
				approve[k] = v // a false (ask, deny) beats a true
			}
		}
	}
	set(p.Allow, true, "allow")
	set(p.Ask, false, "ask")
	set(p.Deny, false, "deny")
	if len(p.AdditionalDirectories) > 0 {
		warns = append(warns, "permissions.additionalDirectories cannot be expressed for copilot; the agent gets its workspace only")
	}
	if len(approve) == 0 {
		return nil, warns
	}
	return []Key{key(approve, "chat.tools.terminal.autoApprove")}, warns
}

// vscodeCommand is the autoApprove key of a Claude Code Bash rule, or why
// it has none.
func vscodeCommand(r string) (string, string) {
	name, arg, hasArg := strings.Cut(r, "(")
	if name != "Bash" || !hasArg || !strings.HasSuffix(arg, ")") {
		return "", fmt.Sprintf("permission rule %q has no VS Code form actctl writes (Bash(command) rules become chat.tools.terminal.autoApprove); it is not written", r)
	}
	arg = strings.TrimSuffix(arg, ")")
	if cmd, ok := strings.CutSuffix(arg, ":*"); ok && cmd != "" {
		return cmd, ""
	}
	if arg == "" || arg == "*" {
		return "/.*/", ""
	}
	return "/^" + regexp.QuoteMeta(arg) + "$/", ""
}
