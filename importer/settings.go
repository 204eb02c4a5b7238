package importer

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// claudeModes are the permission modes actctl's schema accepts
// (#Permissions.defaultMode in schema/actant.cue).
var claudeModes = []string{"default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"}

// scanSettings takes a's settings file: the permissions actctl writes
// (Claude Code's allow, deny, ask, additionalDirectories, defaultMode)
// as the template's permissions, every other key but the MCP servers as
// its native settings, written back one managed key per leaf.
func (p *Plan) scanSettings(a *agent) error {
	f := a.b.Settings
	if f == "" {
		return nil
	}
	m, ok, err := p.readObject(f)
	if !ok {
		return nil
	}
	if err != nil {
		p.leave(Item{Backend: a.b.Name, Kind: "settings", Path: f}, "%v", err)
		return nil
	}
	if other, ok := p.claimFor(a, f); !ok {
		p.leave(Item{Backend: a.b.Name, Kind: "settings", Path: f}, "%s", sameAs(other))
		return nil
	}
	if a.b.MCP != nil && a.b.MCP.Path == f {
		delete(m, a.b.MCP.Key)
	}
	switch a.b.PermDialect {
	case schema.DialectClaude:
		a.perms = claudePerms(m)
	case schema.DialectCodex:
		a.perms = codexPerms(p.root, m)
	}
	if a.perms != nil {
		p.take(Item{Backend: a.b.Name, Kind: "permissions", Path: f})
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !leavesOK(m[k]) {
			p.leave(Item{Backend: a.b.Name, Kind: "settings", Name: k, Path: f}, "holds an empty key or a TOML date, which actctl cannot write back as it is; left as it is")
			delete(m, k)
			continue
		}
		p.take(Item{Backend: a.b.Name, Kind: "settings", Name: k, Path: f})
	}
	if len(m) > 0 {
		a.settings = m
	}
	return nil
}

// claudePerms takes out of m's "permissions" what apply writes from a
// template's permissions; what it leaves in m becomes settings.
func claudePerms(m map[string]any) *schema.Permissions {
	pm, ok := m["permissions"].(map[string]any)
	if !ok {
		return nil
	}
	var p schema.Permissions
	took := false
	for _, l := range []struct {
		key string
		to  *[]string
	}{{"allow", &p.Allow}, {"deny", &p.Deny}, {"ask", &p.Ask}, {"additionalDirectories", &p.AdditionalDirectories}} {
		if rules, ok := stringList(pm[l.key]); ok && len(rules) > 0 {
			*l.to, took = rules, true
			delete(pm, l.key)
		}
	}
	if mode, ok := pm["defaultMode"].(string); ok && slices.Contains(claudeModes, mode) {
		p.DefaultMode, took = mode, true
		delete(pm, "defaultMode")
	}
	if len(pm) == 0 {
		delete(m, "permissions")
	}
	if !took {
		return nil
	}
	return &p
}

func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// leavesOK reports whether v has no empty key on the way to its leaves
// (a managed key path may not have an empty segment).
func leavesOK(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "" || !leavesOK(e) {
				return false
			}
		}
	case []any:
		return !slices.ContainsFunc(x, func(e any) bool { return !leavesOK(e) })
	case nil, string, bool, json.Number, int64, float64:
	default:
		return false // a TOML date or time: no JSON value reads back as one
	}
	return true
}

// codexModes are the modes whose Codex keys codexPerms recognises, one per
// distinct rendering (plan renders as default, auto as acceptEdits).
var codexModes = []string{"default", "acceptEdits", "bypassPermissions", "dontAsk"}

// codexPerms takes out of m the sandbox and approval keys apply writes
// for a permission mode, when they are exactly one mode's.
func codexPerms(root string, m map[string]any) *schema.Permissions {
	for _, mode := range codexModes {
		p := schema.Permissions{DefaultMode: mode}
		keys, err := materialize.PermissionKeys(root, schema.DialectCodex, p)
		if err != nil || !hasKeys(m, keys) {
			continue
		}
		for _, k := range keys {
			deleteKey(m, k.Path)
		}
		return &p
	}
	return nil
}

// hasKeys reports whether m holds every key of keys with its value.
func hasKeys(m map[string]any, keys []materialize.Key) bool {
	for _, k := range keys {
		v, ok := lookup(m, k.Path)
		if !ok {
			return false
		}
		have, err := json.Marshal(v)
		if err != nil || !bytes.Equal(canonical(have), canonical(k.Value)) {
			return false
		}
	}
	return true
}

func lookup(m map[string]any, path []string) (any, bool) {
	var v any = m
	for _, s := range path {
		t, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = t[s]; !ok {
			return nil, false
		}
	}
	return v, true
}

// deleteKey removes path from m, and the tables it leaves empty.
func deleteKey(m map[string]any, path []string) {
	if len(path) == 1 {
		delete(m, path[0])
		return
	}
	sub, ok := m[path[0]].(map[string]any)
	if !ok {
		return
	}
	deleteKey(sub, path[1:])
	if len(sub) == 0 {
		delete(m, path[0])
	}
}
