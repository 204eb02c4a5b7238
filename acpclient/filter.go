package acpclient

import (
	"bytes"
	"context"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
)

// The session plugins (docs/plugins.md) reach a session through one hook
// point: a Filter that the prompt's send and the dispatch of the agent's
// session/update notifications call. The client knows nothing of
// plugins; package plugin builds the Filter.

// Filter transforms one session's traffic.
type Filter interface {
	// Prompt is given the prompt's blocks before they are sent and returns
	// the blocks to send; an error fails the turn, nothing is sent.
	Prompt(ctx context.Context, blocks []acp.ContentBlock) ([]acp.ContentBlock, error)
	// Update is given the params of each session/update notification of
	// the session (they alias the reader's buffer: copy what is kept), on
	// the goroutine that reads the backend, and returns the params
	// delivered in its place, in order: none holds it, to be given back
	// by End.
	Update(ctx context.Context, params []byte) [][]byte
	// End is called once the answer to the turn's session/prompt is
	// read, before the answer is delivered: the params of the updates to
	// deliver first, and an error that fails the turn.
	End(ctx context.Context) ([][]byte, error)
}

// FilterCloser is a Filter that holds something for its session (a
// plugin's sub-agent, docs/plugins.md): Close is called once, when the
// session is closed or its Client is.
type FilterCloser interface {
	Filter
	Close()
}

// FilterFunc makes the Filter of one session; emit shows an Event in the
// session (EventPlugin: a plugin's step).
type FilterFunc func(emit func(Event)) Filter

// EventPlugin is an Event of a plugin's step (Event.Plugin).
const EventPlugin EventKind = "plugin"

// PluginStep is one call of a session plugin as the session shows it
// (docs/plugins.md): sizes, never the text.
type PluginStep struct {
	Plugin    string        `json:"plugin"`
	Direction string        `json:"direction"` // "inbound" or "outbound"
	Duration  time.Duration `json:"-"`
	In        int           `json:"inBytes"`
	Out       int           `json:"outBytes"`
	// Changed: the text came out different.
	Changed bool `json:"changed"`
	// Attempts counts the calls tried (retries included).
	Attempts int `json:"attempts,omitempty"`
	// Outcome is "ok", "passed" (a failure let the text on unchanged,
	// onError "pass") or "failed" (the turn fails).
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
}

// filterState is a session's Filter and what it decided about the turn.
type filterState struct {
	f      Filter
	mu     sync.Mutex
	err    error // End's error of the turn, taken by PromptBlocks
	closed sync.Once
}

// closeFilter closes the session's Filter, if it is a FilterCloser.
func (s *Session) closeFilter() {
	if s.filter == nil {
		return
	}
	if fc, ok := s.filter.f.(FilterCloser); ok {
		s.filter.closed.Do(fc.Close)
	}
}

// setFilter gives s the Filter of Options.Filter, if any.
func (s *Session) setFilter() {
	if mk := s.c.opts.Filter; mk != nil {
		s.filter = &filterState{f: mk(s.emit)}
	}
}

// filterPrompt passes a prompt's blocks through the session's Filter.
func (s *Session) filterPrompt(ctx context.Context, blocks []acp.ContentBlock) ([]acp.ContentBlock, error) {
	if s.filter == nil {
		return blocks, nil
	}
	s.filter.mu.Lock()
	s.filter.err = nil
	s.filter.mu.Unlock()
	return s.filter.f.Prompt(ctx, blocks)
}

// filterErr is the error End gave for the turn just answered.
func (s *Session) filterErr() error {
	if s.filter == nil {
		return nil
	}
	s.filter.mu.Lock()
	defer s.filter.mu.Unlock()
	err := s.filter.err
	s.filter.err = nil
	return err
}

// filtered passes a line of the backend through the Filter of the
// session it concerns and reports whether it was handled so (a
// session/update notification: what the Filter returned was dispatched
// in its place). The answer to a filtered session's prompt first
// dispatches what End returns, then goes on as read.
func (c *Client) filtered(line []byte, env *lineframe.Envelope) bool {
	if env.ID == nil && env.MethodIs(acp.ClientMethodSessionUpdate) {
		sid, _ := lineframe.Unquote(lineframe.Member(line, env.Params, "sessionId"))
		s := c.filterOf(string(sid))
		if s == nil {
			return false
		}
		for _, p := range s.filter.f.Update(c.readCtx, line[env.Params.Start:env.Params.End]) {
			c.dispatchUpdate(p)
		}
		return true
	}
	if sid := c.wire.answering(env); sid != "" {
		if s := c.filterOf(sid); s != nil {
			held, err := s.filter.f.End(c.readCtx)
			for _, p := range held {
				c.dispatchUpdate(p)
			}
			s.filter.mu.Lock()
			s.filter.err = err
			s.filter.mu.Unlock()
		}
	}
	return false
}

// filterOf is the open session sid if it has a Filter.
func (c *Client) filterOf(sid string) *Session {
	if sid == "" {
		return nil
	}
	c.mu.Lock()
	s := c.sessions[sid]
	c.mu.Unlock()
	if s == nil || s.filter == nil {
		return nil
	}
	return s
}

// dispatchUpdate dispatches a session/update notification of params as
// if the backend had written it.
func (c *Client) dispatchUpdate(params []byte) {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":`)
	b.Write(params)
	b.WriteByte('}')
	line := b.Bytes()
	env := lineframe.Parse(line)
	c.dispatch(line, &env)
}
