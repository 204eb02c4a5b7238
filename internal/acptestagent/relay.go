package acptestagent

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"

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

// The ops a relay must pass through unchanged:
//
//	autherr      the turn fails with -32000 "Authentication required",
//	             data {"authMethods": [{"id": "test-login"}]}: an editor
//	             starts its login flow on that code
//	perm-rich    a permission request whose tool call carries rawInput,
//	             locations, content and _meta, and _meta of its own;
//	             "permission: <option id>" or "permission: cancelled"
//	flood N      N text chunks of 1 KiB each, then end_turn: a client that
//	             does not read them
//	last-permission  waits for the session's perm-rich to have its answer
//	             (one started earlier whose client went away), then
//	             "last-permission: <its outcome>"
//	meta         "meta <json>": the _meta of the session's session/new
//	echo-meta    "echo-meta <json>": {"prompt": the prompt's _meta,
//	             "block": the first block's annotations and _meta}, in a
//	             chunk that carries annotations {"priority": 0.5} and
//	             _meta {"test/chunk": true} itself
func init() {
	register("autherr", func(*Turn) (acp.StopReason, error) {
		return "", acp.NewAuthRequired(map[string]any{"authMethods": []map[string]string{{"id": "test-login"}}})
	})
	register("perm-rich", permRich)
	register("meta", func(t *Turn) (acp.StopReason, error) {
		metas.Lock()
		b, _ := json.Marshal(metas.m[string(t.SID)])
		metas.Unlock()
		t.Say("meta " + string(b) + "\n")
		return acp.StopReasonEndTurn, nil
	})
	register("echo-meta", echoMeta)
	register("flood", func(t *Turn) (acp.StopReason, error) {
		n := 0
		if len(t.Words) > 1 {
			n, _ = strconv.Atoi(t.Words[1])
		}
		chunk := strings.Repeat("x", 1023) + "\n"
		for range n {
			t.Say(chunk)
		}
		return acp.StopReasonEndTurn, nil
	})
	register("last-permission", func(t *Turn) (acp.StopReason, error) {
		o := outcomeOf(string(t.SID))
		select {
		case <-o.done:
		case <-t.TCtx.Done():
			return acp.StopReasonCancelled, nil
		}
		t.Say("last-permission: " + o.outcome + "\n")
		return acp.StopReasonEndTurn, nil
	})
}

// outcomes holds each session's last perm-rich answer.
var outcomes struct {
	sync.Mutex
	m map[string]*outcome
}

type outcome struct {
	done    chan struct{} // closed once outcome is set
	outcome string
}

// outcomeOf is the session's outcome, created (pending) if it has none.
func outcomeOf(sid string) *outcome {
	outcomes.Lock()
	defer outcomes.Unlock()
	if outcomes.m == nil {
		outcomes.m = map[string]*outcome{}
	}
	o := outcomes.m[sid]
	if o == nil {
		o = &outcome{done: make(chan struct{})}
		outcomes.m[sid] = o
	}
	return o
}

// metas holds the _meta of each session's session/new.
var metas struct {
	sync.Mutex
	m map[string]map[string]any
}

func rememberMeta(sid string, meta map[string]any) {
	metas.Lock()
	defer metas.Unlock()
	if metas.m == nil {
		metas.m = map[string]map[string]any{}
	}
	metas.m[sid] = meta
}

func permRich(t *Turn) (acp.StopReason, error) {
	id := acp.ToolCallId("call-rich")
	req := acp.RequestPermissionRequest{
		Meta:      map[string]any{"test/request": "r1"},
		SessionId: t.SID,
		ToolCall: acp.ToolCallUpdate{
			Meta:       map[string]any{"test/call": "c1"},
			ToolCallId: id,
			Title:      acp.Ptr("Edit notes.txt"),
			Kind:       acp.Ptr(acp.ToolKindEdit),
			RawInput:   map[string]any{"path": "/tmp/notes.txt", "replace": "old", "with": "new"},
			Locations:  []acp.ToolCallLocation{{Path: "/tmp/notes.txt", Line: acp.Ptr(7)}},
			Content:    []acp.ToolCallContent{acp.ToolDiffContent("/tmp/notes.txt", "new", "old")},
		},
		Options: allowOrReject(),
	}
	resp, err := t.Conn().RequestPermission(context.Background(), req)
	outcome := permissionOutcome(resp, err)
	if o := outcomeOf(string(t.SID)); o.outcome == "" {
		o.outcome = outcome
		close(o.done)
	}
	t.Say("permission: " + outcome + "\n")
	return acp.StopReasonEndTurn, nil
}

func echoMeta(t *Turn) (acp.StopReason, error) {
	out := map[string]any{"prompt": t.Req.Meta}
	if len(t.Req.Prompt) > 0 && t.Req.Prompt[0].Text != nil {
		out["block"] = map[string]any{"annotations": t.Req.Prompt[0].Text.Annotations, "_meta": t.Req.Prompt[0].Text.Meta}
	}
	b, _ := json.Marshal(out)
	text, _ := json.Marshal("echo-meta " + string(b) + "\n")
	// Written as bytes: the SDK's encoder drops a text block's annotations
	// and _meta.
	sid, _ := json.Marshal(t.SID)
	_, err := t.a.out.Write([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` + string(sid) +
		`,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + string(text) +
		`,"annotations":{"priority":0.5},"_meta":{"test/chunk":true}}}}}` + "\n"))
	return acp.StopReasonEndTurn, err
}

// permissionOutcome is what the agent says of its permission request's
// answer: the option chosen, "cancelled", or the error.
func permissionOutcome(resp acp.RequestPermissionResponse, err error) string {
	switch {
	case err != nil:
		return "error " + err.Error()
	case resp.Outcome.Selected != nil:
		return string(resp.Outcome.Selected.OptionId)
	}
	return "cancelled"
}

// allowOrReject are the options of the agent's permission requests.
func allowOrReject() []acp.PermissionOption {
	return []acp.PermissionOption{{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "yes"},
		{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "no"}}
}
