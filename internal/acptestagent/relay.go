package acptestagent

import (
	"os"

	acp "github.com/coder/acp-go-sdk"
)

// This file holds what the tests of the session modes and of the session
// lease's relay (docs/run.md "Session mode", docs/runtime.md "Session
// leases") need of an agent.

// ModesVar chooses the session modes session/new offers: unset, "ask"
// (current) and "code"; "preset", Claude's modes as claude-agent-acp offers
// them: "default" (current), "acceptEdits", "plan", "bypassPermissions".
const ModesVar = "ACTCTL_TEST_MODES"

// offeredModes is the mode state session/new answers with (ModesVar).
func offeredModes() *acp.SessionModeState {
	if os.Getenv(ModesVar) == "preset" {
		return &acp.SessionModeState{CurrentModeId: "default", AvailableModes: []acp.SessionMode{
			{Id: "default", Name: "Default"}, {Id: "acceptEdits", Name: "Accept Edits"},
			{Id: "plan", Name: "Plan Mode"}, {Id: "bypassPermissions", Name: "Bypass Permissions"}}}
	}
	return &acp.SessionModeState{CurrentModeId: "ask", AvailableModes: []acp.SessionMode{{Id: "ask", Name: "Ask"}, {Id: "code", Name: "Code"}}}
}

// offers reports whether session/set_mode may switch to id.
func offers(id acp.SessionModeId) bool {
	for _, m := range offeredModes().AvailableModes {
		if m.Id == id {
			return true
		}
	}
	return false
}
