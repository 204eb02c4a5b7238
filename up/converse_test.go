package up

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// convHarness is a harness whose service api's preset allows edits (so
// an execute tool call is put to the person), telling asked of each
// request put to the person.
func convHarness(t *testing.T) (*harness, Spec, chan uint64) {
	h := newHarness(t, nil)
	h.rule = acpclient.AllowEdits
	asked := make(chan uint64, 10)
	h.m.opts.Asked = func(_ string, task uint64) { asked <- task }
	s := service(t, "api")
	h.m.Sync([]Spec{s})
	h.wait("process:start", "api")
	return h, s, asked
}

// taskText is task id's log.
func taskText(t *testing.T, s Spec, id uint64) string {
	t.Helper()
	p, err := tasklog.TaskFile(s.LogsDir, id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConversationTurns: a conversation's turns are tasks in one session
// on the warm process (turn 2 follows turn 1), listed with their
// prompts; a person's answer to a permission request the preset leaves
// to them is the decision, recorded as the user's.
func TestConversationTurns(t *testing.T) {
	h, s, asked := convHarness(t)
	ctx := context.Background()
	id, err := h.m.NewConversation(ctx, "api")
	if err != nil {
		t.Fatal(err)
	}
	first, err := h.m.Say(ctx, "api", id, "session")
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.m.Say(ctx, "api", id, "session")
	if err != nil {
		t.Fatal(err)
	}
	h.wait("prompt:after", "api")
	h.wait("prompt:after", "api")
	if log := taskText(t, s, second); !strings.Contains(log, "session "+id+" cwd") || !strings.Contains(log, "turn 2") {
		t.Errorf("second turn's log:\n%s", log)
	}
	third, err := h.m.Say(ctx, "api", id, "perm execute")
	if err != nil {
		t.Fatal(err)
	}
	if task := <-asked; task != third {
		t.Fatalf("asked in task %d, want %d", task, third)
	}
	if err := h.m.Answer("api", id, "call-execute", "nope"); err == nil || !strings.Contains(err.Error(), `no option "nope"`) {
		t.Errorf("answer with an option not offered: %v", err)
	}
	if err := h.m.Answer("api", id, "call-execute", "yes"); err != nil {
		t.Fatal(err)
	}
	h.wait("prompt:after", "api")
	log := taskText(t, s, third)
	for _, want := range []string{`"method":"_actctl/ask"`, `"optionId":"never"`, `"decision":"allowed","optionId":"yes","by":"user"`, "permission: yes"} {
		if !strings.Contains(log, want) {
			t.Errorf("third turn's log lacks %s:\n%s", want, log)
		}
	}
	c, err := h.m.Conversation("api", id)
	if err != nil || len(c.Turns) != 3 || c.Turns[0].Task != first || c.Title != "session" {
		t.Errorf("conversation: %+v %v", c, err)
	}
	if err := h.m.Answer("api", id, "call-execute", "yes"); err == nil {
		t.Errorf("a second answer was taken")
	}
}

// TestConversationAskDeadline: a request nobody answers is decided by
// the agent's preset once AskWait has passed, recorded as the preset's.
func TestConversationAskDeadline(t *testing.T) {
	h, s, asked := convHarness(t)
	ctx := context.Background()
	id, err := h.m.NewConversation(ctx, "api")
	if err != nil {
		t.Fatal(err)
	}
	task, err := h.m.Say(ctx, "api", id, "perm execute")
	if err != nil {
		t.Fatal(err)
	}
	<-asked
	h.clk.Advance(DefaultAskWait)
	h.wait("prompt:after", "api")
	if log := taskText(t, s, task); !strings.Contains(log, `"decision":"denied","optionId":"no","by":"preset","rule":"edits"`) {
		t.Errorf("log:\n%s", log)
	}
}

// TestConversationAskRule: a request the agent's own ask rule matches is
// put to the person though the preset allows it, and recorded as the
// user's answer with the rule that asked; unanswered past AskWait it is
// rejected, recorded as the rule's. A deny rule answers without asking.
// Before, the preset (edits) allowed every one of them unasked.
func TestConversationAskRule(t *testing.T) {
	h := newHarness(t, nil)
	h.rule = acpclient.AllowEdits
	h.rules = acpclient.RulesOf(model.Permissions{Ask: []string{"Edit"}, Deny: []string{"WebFetch"}})
	asked := make(chan uint64, 10)
	h.m.opts.Asked = func(_ string, task uint64) { asked <- task }
	s := service(t, "api")
	h.m.Sync([]Spec{s})
	h.wait("process:start", "api")
	ctx := context.Background()
	id, err := h.m.NewConversation(ctx, "api")
	if err != nil {
		t.Fatal(err)
	}
	first, err := h.m.Say(ctx, "api", id, "perm edit")
	if err != nil {
		t.Fatal(err)
	}
	for waiting := true; waiting; {
		select {
		case task := <-asked:
			if task != first {
				t.Fatalf("asked in task %d, want %d", task, first)
			}
			waiting = false
		case ev := <-h.events:
			if ev.Name == "prompt:after" {
				t.Fatalf("the turn ended without asking the person")
			}
		}
	}
	if err := h.m.Answer("api", id, "call-edit", "no"); err != nil {
		t.Fatal(err)
	}
	h.wait("prompt:after", "api")
	second, err := h.m.Say(ctx, "api", id, "perm edit")
	if err != nil {
		t.Fatal(err)
	}
	<-asked
	h.clk.Advance(DefaultAskWait)
	h.wait("prompt:after", "api")
	third, err := h.m.Say(ctx, "api", id, "perm fetch")
	if err != nil {
		t.Fatal(err)
	}
	h.wait("prompt:after", "api")
	for task, want := range map[uint64]string{
		first:  `"decision":"denied","optionId":"no","by":"user","rule":"ask Edit"`,
		second: `"decision":"denied","optionId":"no","by":"permissions","rule":"ask Edit"`,
		third:  `"decision":"denied","optionId":"no","by":"permissions","rule":"deny WebFetch"`,
	} {
		if log := taskText(t, s, task); !strings.Contains(log, want) {
			t.Errorf("task %d's log lacks %s:\n%s", task, want, log)
		}
	}
	select {
	case task := <-asked:
		t.Errorf("task %d was put to the person: a deny rule answers", task)
	default:
	}
}

// TestConversationCancel: Cancel ends the running turn (session/cancel;
// the request put to the person is answered cancelled), the process and
// the conversation go on, and the next turn follows in the same session.
func TestConversationCancel(t *testing.T) {
	h, s, asked := convHarness(t)
	ctx := context.Background()
	id, err := h.m.NewConversation(ctx, "api")
	if err != nil {
		t.Fatal(err)
	}
	task, err := h.m.Say(ctx, "api", id, "perm execute") // the turn waits for the person
	if err != nil {
		t.Fatal(err)
	}
	<-asked
	if err := h.m.CancelTurn("api", id); err != nil {
		t.Fatal(err)
	}
	h.wait("prompt:after", "api")
	sums, _ := tasklog.Summaries(s.LogsDir)
	if len(sums) != 1 || sums[0].Task != task || !strings.Contains(sums[0].Error, "cancelled by the user") {
		t.Fatalf("summaries: %+v", sums)
	}
	next, err := h.m.Say(ctx, "api", id, "session")
	if err != nil {
		t.Fatal(err)
	}
	h.wait("prompt:after", "api")
	if log := taskText(t, s, next); !strings.Contains(log, "turn 2") {
		t.Errorf("next turn:\n%s", log)
	}
	if n := h.seenCount("process:start", "api"); n != 1 {
		t.Errorf("%d process starts", n)
	}
}

// TestConversationEmployee: an employee's conversation turns are tasks of
// its queue, run in the conversation's session (not its primary one), in
// order.
func TestConversationEmployee(t *testing.T) {
	h := newHarness(t, nil)
	s := employee(t, "triage", schedule.Spec{})
	h.m.Sync([]Spec{s})
	h.wait("process:start", "triage")
	ctx := context.Background()
	id, err := h.m.NewConversation(ctx, "triage")
	if err != nil {
		t.Fatal(err)
	}
	first, err := h.m.Say(ctx, "triage", id, "session")
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.m.Say(ctx, "triage", id, "session")
	if err != nil || second != first+1 {
		t.Fatalf("second turn: task %d %v (first %d)", second, err, first)
	}
	h.wait("task:done", "triage")
	h.wait("task:done", "triage")
	if log := taskText(t, s, second); !strings.Contains(log, "session "+id+" cwd") || !strings.Contains(log, "turn 2") {
		t.Errorf("second turn's log:\n%s", log)
	}
}

// TestConversationNotLeased: no lease client, whatever identity it
// claims, lists or resumes a dashboard conversation.
func TestConversationNotLeased(t *testing.T) {
	for _, claim := range []string{"uid 0 name dashboard", "name dashboard", "actctl up name dashboard", ""} {
		for _, peer := range []bool{false, true} {
			if c := newLeaseID(claim, os.Getuid(), peer); dashboardID().lists(c) || dashboardID().resumes(c) {
				t.Errorf("claim %q (peer known %v) reaches the dashboard's sessions", claim, peer)
			}
		}
	}
}

// TestConversationsBounded: past maxConvos conversations the oldest with
// no turn running is closed.
func TestConversationsBounded(t *testing.T) {
	h, _, _ := convHarness(t)
	ctx := context.Background()
	var ids []string
	for range maxConvos + 1 {
		id, err := h.m.NewConversation(ctx, "api")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		h.clk.Advance(time.Second) // each started after the one before
	}
	if _, err := h.m.Conversation("api", ids[0]); err == nil {
		t.Errorf("the oldest conversation is still open")
	}
	if all, _ := h.m.Conversations("api"); len(all) != maxConvos || all[0].ID != ids[maxConvos] {
		t.Errorf("%d conversations open, the newest first: %v", len(all), all[0].ID)
	}
}
