package acpclient

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"
)

type recorder struct {
	mu     sync.Mutex
	events []Event
	lines  []string
}

func (r *recorder) Message(l []byte) {
	r.mu.Lock()
	r.lines = append(r.lines, string(l))
	r.mu.Unlock()
}
func (r *recorder) Event(e Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }

func (r *recorder) states(id string) []State {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []State
	for _, e := range r.events {
		if e.Kind == EventToolCall && e.ToolCall.ID == id {
			out = append(out, e.ToolCall.State)
		}
	}
	return out
}

// TestThreadTransitions: a tool call goes pending -> awaiting permission
// -> allowed/denied -> in progress -> completed/failed, one event per
// change, and the counts come from the same records.
func TestThreadTransitions(t *testing.T) {
	rec := &recorder{}
	th := newThread(rec.Event)
	st := func(s acp.ToolCallStatus) *acp.ToolCallStatus { return &s }
	th.started(&acp.SessionUpdateToolCall{ToolCallId: "a", Title: "Edit", Kind: "edit", Status: "pending"})
	th.awaiting(acp.ToolCallUpdate{ToolCallId: "a"})
	th.decided("a", Decision{OptionID: "yes", Allowed: true}, false, ByPreset, AllowAll, "")
	th.updated(&acp.SessionToolCallUpdate{ToolCallId: "a", Status: st("pending")}) // no step back
	th.updated(&acp.SessionToolCallUpdate{ToolCallId: "a", Status: st("in_progress")})
	th.updated(&acp.SessionToolCallUpdate{ToolCallId: "a", Status: st("in_progress")}) // no change, no event
	th.updated(&acp.SessionToolCallUpdate{ToolCallId: "a", Status: st("completed")})

	th.awaiting(acp.ToolCallUpdate{ToolCallId: "b", Kind: acp.Ptr(acp.ToolKindExecute)}) // permission before tool_call
	th.decided("b", Decision{OptionID: "no"}, false, ByPreset, AllowReads, "")
	th.updated(&acp.SessionToolCallUpdate{ToolCallId: "b", Status: st("failed")})
	th.awaiting(acp.ToolCallUpdate{ToolCallId: "c"})
	th.decided("c", Decision{}, true, ByCancel, "", "")

	if got, want := rec.states("a"), []State{StatePending, StateAwaiting, StateAllowed, StateInProgress, StateCompleted}; !reflect.DeepEqual(got, want) {
		t.Errorf("a: %v, want %v", got, want)
	}
	if got, want := rec.states("b"), []State{StateAwaiting, StateDenied, StateFailed}; !reflect.DeepEqual(got, want) {
		t.Errorf("b: %v, want %v", got, want)
	}
	if got, want := th.permissions(), (Permissions{Allowed: 1, Denied: 1, Cancelled: 1}); got != want {
		t.Errorf("permissions %+v, want %+v", got, want)
	}
	last := rec.events[len(rec.events)-1].ToolCall
	if last.ID != "c" || last.State != StateCancelled {
		t.Errorf("last event %+v", last)
	}
}

// TestThreadBounded: however many tool calls the agent makes and however
// long their titles, a session keeps at most maxCalls of them and
// maxTitle bytes of a title. (issue #20 item 14)
func TestThreadBounded(t *testing.T) {
	th := newThread(func(Event) {})
	long := strings.Repeat("é", maxTitle)
	for i := 0; i < 3*maxCalls; i++ {
		id := acp.ToolCallId("call-" + strconv.Itoa(i))
		th.started(&acp.SessionUpdateToolCall{ToolCallId: id, Title: long, Status: acp.ToolCallStatusCompleted})
		if i%2 == 0 {
			th.started(&acp.SessionUpdateToolCall{ToolCallId: id + "-open", Title: "open"})
		}
	}
	th.mu.Lock()
	defer th.mu.Unlock()
	if len(th.calls) > maxCalls {
		t.Errorf("%d tool calls kept", len(th.calls))
	}
	for _, c := range th.calls {
		if len(c.Title) > maxTitle+len("…") || !utf8.ValidString(c.Title) {
			t.Fatalf("a title of %d bytes kept (valid UTF-8: %v)", len(c.Title), utf8.ValidString(c.Title))
		}
	}
}
