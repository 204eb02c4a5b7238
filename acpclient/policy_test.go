package acpclient

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/schema"
)

func opts(kinds ...acp.PermissionOptionKind) []acp.PermissionOption {
	var out []acp.PermissionOption
	for _, k := range kinds {
		out = append(out, acp.PermissionOption{Kind: k, OptionId: acp.PermissionOptionId("id-" + string(k)), Name: string(k)})
	}
	return out
}

const (
	ao = acp.PermissionOptionKindAllowOnce
	aa = acp.PermissionOptionKindAllowAlways
	ro = acp.PermissionOptionKindRejectOnce
	ra = acp.PermissionOptionKindRejectAlways
)

func TestRuleFor(t *testing.T) {
	for _, tc := range []struct {
		p    schema.Permissions
		want Rule
	}{
		{schema.Permissions{Preset: "readonly"}, AllowReads},
		{schema.Permissions{Preset: "restricted"}, AllowReads},
		{schema.Permissions{Preset: "standard"}, AllowEdits},
		{schema.Permissions{Preset: "permissive"}, AllowAll},
		{schema.Permissions{DefaultMode: "default"}, AllowReads},
		{schema.Permissions{DefaultMode: "plan"}, AllowReads},
		{schema.Permissions{DefaultMode: "acceptEdits"}, AllowEdits},
		{schema.Permissions{DefaultMode: "bypassPermissions"}, AllowAll},
		{schema.Permissions{Allow: []string{"Bash"}}, AllowReads},
	} {
		if got := RuleFor(tc.p); got != tc.want {
			t.Errorf("RuleFor(%+v) = %s, want %s", tc.p, got, tc.want)
		}
	}
}

// TestDecide is the permission policy's table: rule x tool kind x the
// options the agent offered -> the option id answered.
func TestDecide(t *testing.T) {
	all := opts(ao, aa, ro, ra)
	kinds := []acp.ToolKind{"read", "search", "think", "fetch", "edit", "delete", "move", "execute", "switch_mode", "other", ""}
	allowed := map[Rule]map[acp.ToolKind]bool{
		AllowReads: {"read": true, "search": true, "think": true, "fetch": true},
		AllowEdits: {"read": true, "search": true, "think": true, "fetch": true, "edit": true, "delete": true, "move": true},
		AllowAll:   {"read": true, "search": true, "think": true, "fetch": true, "edit": true, "delete": true, "move": true, "execute": true, "switch_mode": true, "other": true, "": true},
		DenyAll:    {},
	}
	for rule, ok := range allowed {
		for _, k := range kinds {
			d := Decide(rule, k, all)
			want := Decision{OptionID: "id-reject_once"}
			if ok[k] {
				want = Decision{OptionID: "id-allow_once", Allowed: true}
			}
			if d != want {
				t.Errorf("Decide(%s, %q) = %+v, want %+v", rule, k, d, want)
			}
		}
	}
	for _, tc := range []struct {
		name         string
		allow, alway bool
		options      []acp.PermissionOption
		want         Decision
	}{
		{"allow_always when no allow_once", true, false, opts(aa, ro), Decision{"id-allow_always", true}},
		{"allow_always preferred on always", true, true, opts(ao, aa, ro), Decision{"id-allow_always", true}},
		{"always falls back to once", true, true, opts(ao, ro), Decision{"id-allow_once", true}},
		{"reject_always when no reject_once", false, false, opts(ao, ra), Decision{"id-reject_always", false}},
		{"order of kinds, not of the list", false, false, opts(ra, ro), Decision{"id-reject_once", false}},
		{"allow wanted, none offered: reject", true, false, opts(ro, ra), Decision{"id-reject_once", false}},
		{"nothing fitting: cancelled", false, false, opts(ao, aa), Decision{}},
		{"no options at all", true, false, nil, Decision{}},
	} {
		if got := Choose(tc.allow, tc.alway, tc.options); got != tc.want {
			t.Errorf("%s: Choose = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestClientMethods: the preset decides what the agent may call through
// the client; a narrower rule (--deny-all, --approve-reads) takes it
// away, a wider one (--approve-all) adds nothing. (issue #20 item 5)
func TestClientMethods(t *testing.T) {
	none, writes, all := Methods{}, Methods{Write: true}, Methods{Write: true, Terminal: true}
	for _, tc := range []struct {
		preset, rule Rule
		want         Methods
	}{
		{AllowReads, "", none}, {AllowEdits, "", writes}, {AllowAll, "", all},
		{AllowReads, AllowAll, none}, {AllowEdits, AllowAll, writes},
		{AllowAll, DenyAll, none}, {AllowAll, AllowReads, none}, {AllowAll, AllowEdits, writes},
		{"", AllowEdits, writes}, {"", "", none}, {"bogus", "", none},
	} {
		if got := ClientMethods(tc.preset, tc.rule); got != tc.want {
			t.Errorf("ClientMethods(%q, %q) = %+v, want %+v", tc.preset, tc.rule, got, tc.want)
		}
	}
}
