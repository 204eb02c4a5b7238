package plugin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/schema"
)

// session is one session's Filter: the Set's chains with the state of
// the turn in progress and of the session.
type session struct {
	set  *Set
	emit func(acpclient.Event)

	mu           sync.Mutex
	turn         *turnState
	sessionTurns map[*step]int // an agent plugin's sub-agent turns so far
	sub          SubAgents     // made on the first sub-agent turn (Options.SubAgents)
	closed       bool
}

// Close ends the session's sub-agents (acpclient.FilterCloser).
func (s *session) Close() {
	s.mu.Lock()
	sub := s.sub
	s.sub, s.closed = nil, true
	s.mu.Unlock()
	if sub != nil {
		sub.Close()
	}
}

// errClosed is a sub-agent turn asked after the main session ended.
var errClosed = errors.New("the session has ended")

// runTurn runs a sub-agent's turn: in the session's SubAgents (made on
// the first), else by the Runner.
func (s *session) runTurn(ctx context.Context, t AgentTurn) (string, error) {
	mk := s.set.opts.SubAgents
	if mk == nil {
		if s.set.opts.Runner == nil {
			return "", errNoRunner
		}
		return s.set.opts.Runner(ctx, t)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", errClosed
	}
	if s.sub == nil {
		s.sub = mk()
	}
	sub := s.sub
	s.mu.Unlock()
	return sub.Ask(ctx, t)
}

// turnState is what one turn's plugins did so far.
type turnState struct {
	calls  map[*step]int  // calls per step (the budget)
	warned map[*step]bool // a step that passed a failure warns once a turn
	err    error          // the first failure of a step whose onError is "fail"
	held   map[*step][][]byte
}

func newTurnState() *turnState {
	return &turnState{calls: map[*step]int{}, warned: map[*step]bool{}, held: map[*step][][]byte{}}
}

// errBudget is a call past a plugin's budget.
var errBudget = errors.New("budget spent")

// FailError is a turn failed by a plugin whose onError is "fail".
type FailError struct {
	Plugin, Direction string
	Err               error
}

func (e *FailError) Error() string {
	what := "the prompt was not sent"
	if e.Direction == schema.OnOutbound {
		what = "the agent's message went on unchanged"
	}
	return fmt.Sprintf("plugin %s (%s) failed: %v; the turn fails (onError \"fail\"; %s)", e.Plugin, e.Direction, e.Err, what)
}

func (e *FailError) Unwrap() error { return e.Err }

// result is what one try of a step gives: the text after it (whose
// size the step shows) and, inbound, the prompt's blocks after it. A try
// abandoned past its timeout shares nothing with its caller: all it
// gives is its result.
type result struct {
	text   string
	blocks []acp.ContentBlock
}

// transform is one try of a step on text.
type transform func(ctx context.Context, text string) (result, error)

// call runs fn on in as st's bounds say: within the budget, each try
// within the timeout, tried again up to retries times, and reports
// whether it succeeded. On a failure it returns a *FailError when st's
// onError is "fail"; every call is shown as a step (a built-in's only
// when it changed the text).
func (s *session) call(ctx context.Context, st *step, dir, in string, fn transform) (result, bool, error) {
	start := time.Now()
	out, attempts, err := s.try(ctx, st, in, fn)
	ps := acpclient.PluginStep{Plugin: st.name, Direction: dir, Duration: time.Since(start), In: len(in), Attempts: attempts, Outcome: "ok"}
	if err == nil {
		ps.Out, ps.Changed = len(out.text), out.text != in
		if ps.Changed || !st.p.Builtin() {
			s.emit(acpclient.Event{Kind: acpclient.EventPlugin, Plugin: &ps})
		}
		return out, true, nil
	}
	ps.Out, ps.Error = len(in), s.set.Redact(err.Error())
	fail := s.failed(st, dir, err)
	ps.Outcome = "passed"
	if fail != nil {
		ps.Outcome = "failed"
	}
	s.mu.Lock()
	show := fail != nil || !s.turn.warned[st]
	s.turn.warned[st] = true
	s.mu.Unlock()
	if show { // one warning a turn for a plugin that passes
		s.emit(acpclient.Event{Kind: acpclient.EventPlugin, Plugin: &ps})
	}
	return result{text: in}, false, fail
}

// failed records a failure of st and returns the turn's error when its
// onError is "fail".
func (s *session) failed(st *step, dir string, err error) error {
	if !st.b.Fail {
		return nil
	}
	fe := &FailError{Plugin: st.name, Direction: dir, Err: err}
	s.mu.Lock()
	if s.turn.err == nil {
		s.turn.err = fe
	}
	s.mu.Unlock()
	return fe
}

// try runs fn within st's budget, timeout and retries.
func (s *session) try(ctx context.Context, st *step, in string, fn transform) (result, int, error) {
	var err error
	attempts := 0
	for attempts <= st.b.Retries {
		if err := s.spend(st); err != nil {
			return result{}, attempts, err
		}
		attempts++
		var out result
		out, err = timed(ctx, st, in, fn)
		if err == nil {
			return out, attempts, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return result{}, attempts, err
}

// spend takes one call from st's budgets (the turn's; an agent plugin's
// session's too).
func (s *session) spend(st *step) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := st.b.Budget; b > 0 && s.turn.calls[st] >= b {
		return fmt.Errorf("%w: %d calls this turn (budget)", errBudget, b)
	}
	if b := st.b.SessionBudget; b > 0 && s.sessionTurns[st] >= b {
		return fmt.Errorf("%w: %d sub-agent turns this session (sessionBudget)", errBudget, b)
	}
	s.turn.calls[st]++
	if st.p.Kind == schema.PluginAgent {
		s.sessionTurns[st]++
	}
	return nil
}

// timed is one try of fn, bounded by st's timeout (built-ins run in
// place: they do not wait on anything). A try past its timeout is left
// to end on its own: its answer is dropped.
func timed(ctx context.Context, st *step, in string, fn transform) (result, error) {
	if st.p.Builtin() {
		return fn(ctx, in)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, st.b.Timeout, fmt.Errorf("timed out after %s", st.b.Timeout))
	defer cancel()
	type answer struct {
		r   result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		r, err := fn(ctx, in)
		done <- answer{r, err}
	}()
	select {
	case a := <-done:
		if a.err != nil && ctx.Err() != nil {
			return result{}, context.Cause(ctx)
		}
		return a.r, a.err
	case <-ctx.Done():
		return result{}, context.Cause(ctx)
	}
}
