package acpclient

import (
	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/model"
)

// Rule is what the client allows when no person is asked (docs/run.md,
// "Permissions").
type Rule string

const (
	// AllowReads allows the tool kinds read, search, think and fetch.
	AllowReads Rule = "reads"
	// AllowEdits also allows edit, delete and move.
	AllowEdits Rule = "edits"
	// AllowAll allows every tool kind.
	AllowAll Rule = "all"
	// DenyAll allows nothing.
	DenyAll Rule = "none"
)

// RuleFor maps an agent's permissions to a Rule (docs/run.md, "Permissions"):
// readonly and restricted allow reads, standard edits, permissive all; an
// explicit rule set goes by its defaultMode (default and plan: reads,
// acceptEdits: edits, bypassPermissions: all); none at all as standard.
func RuleFor(p model.Permissions) Rule {
	if p.Unset() {
		return AllowEdits // no permissions given: answered as standard
	}
	switch p.Preset {
	case model.PresetReadonly, model.PresetRestricted:
		return AllowReads
	case model.PresetStandard:
		return AllowEdits
	case model.PresetPermissive:
		return AllowAll
	}
	switch p.DefaultMode {
	case "acceptEdits":
		return AllowEdits
	case "bypassPermissions":
		return AllowAll
	}
	return AllowReads
}

// Allows reports whether rule allows a tool call of this kind; an unset
// kind counts as "other".
func (r Rule) Allows(kind acp.ToolKind) bool {
	switch r {
	case AllowAll:
		return true
	case DenyAll:
		return false
	}
	switch kind {
	case acp.ToolKindRead, acp.ToolKindSearch, acp.ToolKindThink, acp.ToolKindFetch:
		return true
	case acp.ToolKindEdit, acp.ToolKindDelete, acp.ToolKindMove:
		return r == AllowEdits
	}
	return false
}

// Decision is the answer to one permission request.
type Decision struct {
	// OptionID is the agent's option chosen; empty means the request is
	// answered "cancelled" (nothing fitting was offered, or the turn was
	// cancelled).
	OptionID string
	// Allowed is true when an allow option was chosen.
	Allowed bool
}

// Choose answers a request with one of the options the agent offered,
// never an invented id: when allow is true the first allow_once option,
// else the first allow_always (always first when preferAlways); when allow
// is false, or no allow option was offered, the first reject_once, else
// reject_always. With no fitting option the answer is "cancelled" (a
// rejection the protocol always allows).
func Choose(allow, preferAlways bool, options []acp.PermissionOption) Decision {
	if allow {
		order := []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways}
		if preferAlways {
			order[0], order[1] = order[1], order[0]
		}
		if id := firstOfKind(options, order...); id != "" {
			return Decision{OptionID: id, Allowed: true}
		}
	}
	return Decision{OptionID: firstOfKind(options, acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways)}
}

func firstOfKind(options []acp.PermissionOption, kinds ...acp.PermissionOptionKind) string {
	for _, k := range kinds {
		for _, o := range options {
			if o.Kind == k && o.OptionId != "" {
				return string(o.OptionId)
			}
		}
	}
	return ""
}

// Decide is the policy with no person present: rule applied to the tool
// kind, answered with the agent's own options.
func Decide(rule Rule, kind acp.ToolKind, options []acp.PermissionOption) Decision {
	return Choose(rule.Allows(kind), false, options)
}

// Methods are the client methods that change things which an agent may
// call on actctl directly, outside any permission request: the preset
// binds the client, not only the agent's good manners (docs/run.md, "What
// the preset lets the client do"). Reads (fs/read_text_file) are always
// served, within the roots.
type Methods struct {
	// Write: fs/write_text_file.
	Write bool
	// Terminal: terminal/create and the other terminal/* methods.
	Terminal bool
}

// Methods is what rule lets an agent call: reads only for AllowReads and
// DenyAll (the readonly and restricted presets, --approve-reads,
// --deny-all), writes too for AllowEdits (standard), terminals too for
// AllowAll (permissive); nothing beyond reads for any other value.
func (r Rule) Methods() Methods {
	switch r {
	case AllowEdits:
		return Methods{Write: true}
	case AllowAll:
		return Methods{Write: true, Terminal: true}
	}
	return Methods{}
}

// ClientMethods is what the client lets an agent call: its preset's
// methods, narrowed by a rule that allows less (--deny-all,
// --approve-reads). A rule never widens them: --approve-all changes the
// answers to permission requests, not what the agent may do through the
// client itself. An empty preset is the rule; an empty rule (a person is
// asked) narrows nothing.
func ClientMethods(preset, rule Rule) Methods {
	if preset == "" {
		preset = rule
	}
	m := preset.Methods()
	if rule != "" {
		n := rule.Methods()
		m.Write, m.Terminal = m.Write && n.Write, m.Terminal && n.Terminal
	}
	return m
}
