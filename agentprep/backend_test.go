package agentprep

import (
	"testing"

	"github.com/actctl/actctl/acpclient"
)

// TestBackend: the launch spec every client gets from one place: the
// client's project as its cwd, the agent's preset unless a rule replaces
// it (with the session mode that goes with the rule); up and task get the
// agent's workspace and its preset (Resident).
func TestBackend(t *testing.T) {
	cfg, _, _, other := chooseWorkspace(t)
	r, err := cfg.Resolve("helper")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cwd  string
		rule, want acpclient.Rule
		mode       string
	}{
		{"preset", other, "", acpclient.AllowEdits, ""},
		{"deny-all", other, acpclient.DenyAll, acpclient.DenyAll, "plan"},
		{"approve-reads", other, acpclient.AllowReads, acpclient.AllowReads, "default"},
	} {
		o, err := Backend(cfg, r, tc.cwd, tc.rule)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if o.ClientCwd != tc.cwd || o.Rule != tc.want || o.Mode != tc.mode || o.Preset != acpclient.AllowEdits || o.Launch.Command == "" {
			t.Errorf("%s: cwd %s, rule %s, mode %q, preset %s, command %q; want %s, %s, %q, %s",
				tc.name, o.ClientCwd, o.Rule, o.Mode, o.Preset, o.Launch.Command, tc.cwd, tc.want, tc.mode, acpclient.AllowEdits)
		}
	}
	o, err := Resident(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	if o.ClientCwd != r.Dir || o.Rule != acpclient.AllowEdits {
		t.Errorf("Resident: cwd %s, rule %s; want %s, %s", o.ClientCwd, o.Rule, r.Dir, acpclient.AllowEdits)
	}
}
