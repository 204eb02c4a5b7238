package dashboard

import (
	"context"
	"fmt"
	"time"

	"github.com/actctl/actctl/up"
)

// Sessions is the fake's conversations: one per agent, "s1", whose turns
// are recorded with the other controls.
func (f *fake) Sessions() Sessions { return fakeSessions{f} }

type fakeSessions struct{ f *fake }

func (s fakeSessions) record(format string, args ...any) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.controls = append(s.f.controls, fmt.Sprintf(format, args...))
}

func (s fakeSessions) CancelTask(agent string, id uint64) error {
	s.record("cancel %s %d", agent, id)
	if id == 404 {
		return fmt.Errorf("%s has no task %d waiting or running", agent, id)
	}
	return nil
}

func (s fakeSessions) NewConversation(_ context.Context, agent string) (string, error) {
	s.record("new %s", agent)
	return "s1", nil
}

func (s fakeSessions) Conversations(agent string) ([]up.Conversation, error) {
	c, err := s.Conversation(agent, "s1")
	return []up.Conversation{c}, err
}

func (s fakeSessions) Conversation(agent, id string) (up.Conversation, error) {
	if id != "s1" {
		return up.Conversation{}, fmt.Errorf("%s has no conversation %s", agent, id)
	}
	return up.Conversation{ID: "s1", Title: "<b>hi</b>", Started: time.Unix(0, 0), Turns: []up.ConvTurn{{Task: 1, Prompt: "<b>hi</b>"}}, Running: 1}, nil
}

func (s fakeSessions) Say(_ context.Context, agent, id, text string) (uint64, error) {
	s.record("say %s %s %s", agent, id, text)
	return 2, nil
}

func (s fakeSessions) CancelTurn(agent, id string) error {
	s.record("cancel-turn %s %s", agent, id)
	return nil
}

func (s fakeSessions) Answer(agent, id, call, option string) error {
	s.record("answer %s %s %s %s", agent, id, call, option)
	return nil
}

func (s fakeSessions) CloseConversation(agent, id string) error {
	s.record("close %s %s", agent, id)
	return nil
}
