package plugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/schema"
)

// events collects a session's plugin steps.
type events struct {
	mu    sync.Mutex
	steps []acpclient.PluginStep
}

func (e *events) emit(ev acpclient.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ev.Plugin != nil {
		e.steps = append(e.steps, *ev.Plugin)
	}
}

func (e *events) outcomes() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var s []string
	for _, st := range e.steps {
		s = append(s, st.Plugin+":"+st.Direction+":"+st.Outcome)
	}
	return strings.Join(s, " ")
}

// newSession is a session of the plugins names of cfg's plugins.
func newSession(t *testing.T, plugins map[string]schema.Plugin, names []string, run Runner) (acpclient.Filter, *events) {
	t.Helper()
	set, err := New(&schema.Config{Plugins: plugins}, names, Options{Runner: run})
	if err != nil {
		t.Fatal(err)
	}
	ev := &events{}
	return set.Filter(ev.emit), ev
}

func promptText(t *testing.T, f acpclient.Filter, text string) (string, error) {
	t.Helper()
	out, err := f.Prompt(context.Background(), []acp.ContentBlock{acp.TextBlock(text)})
	var parts []string
	for _, b := range out {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Resource != nil:
			parts = append(parts, "resource:"+b.Resource.Resource.TextResourceContents.Text)
		}
	}
	return strings.Join(parts, "|"), err
}

// chunk is the params of an agent_message_chunk of text.
func chunk(text string) []byte {
	return []byte(fmt.Sprintf(`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%q}}}`, text))
}

// texts are the chunk texts of params (others as their sessionUpdate).
func texts(t *testing.T, params [][]byte) string {
	t.Helper()
	var out []string
	for _, p := range params {
		u, ok := parseUpdate(p)
		if !ok {
			t.Fatalf("not an update: %s", p)
		}
		if s, ok := u.chunkText(); ok {
			out = append(out, s)
		} else {
			out = append(out, u.kind())
		}
	}
	return strings.Join(out, "|")
}

// upper is a Runner whose sub-agent upper-cases its prompt.
func upper(_ context.Context, t AgentTurn) (string, error) { return strings.ToUpper(t.Prompt), nil }

// TestChainOrder: the inbound chain runs in declared order, the
// outbound one in reverse (docs/plugins.md, "Order").
func TestChainOrder(t *testing.T) {
	plugins := map[string]schema.Plugin{
		"a": {Kind: schema.PluginAgent, Agent: "x", Prompt: "a({{text}})", On: schema.OnBoth, Stream: schema.StreamChunk},
		"b": {Kind: schema.PluginAgent, Agent: "x", Prompt: "b({{text}})", On: schema.OnBoth, Stream: schema.StreamChunk},
		"p": {Kind: schema.PluginPrefix, Text: "rules"},
	}
	f, ev := newSession(t, plugins, []string{"a", "b", "p"}, func(_ context.Context, t AgentTurn) (string, error) { return t.Prompt, nil })
	got, err := promptText(t, f, "hi")
	if err != nil || got != "rules|b(a(hi))" {
		t.Errorf("inbound: %q, %v; want rules|b(a(hi))", got, err)
	}
	out := f.Update(context.Background(), chunk("yo"))
	if got := texts(t, out); got != "a(b(yo))" {
		t.Errorf("outbound: %q; want a(b(yo))", got)
	}
	if got, want := ev.outcomes(), "a:inbound:ok b:inbound:ok p:inbound:ok b:outbound:ok a:outbound:ok"; got != want {
		t.Errorf("steps: %s\nwant  %s", got, want)
	}
}

// TestStreamMessage: a plugin of stream "message" holds the chunks and
// gives the whole message, transformed once, at the turn's end; other
// updates go on at once.
func TestStreamMessage(t *testing.T) {
	plugins := map[string]schema.Plugin{"up": {Kind: schema.PluginAgent, Agent: "x", On: schema.OnOutbound}}
	var calls int
	f, _ := newSession(t, plugins, []string{"up"}, func(ctx context.Context, tt AgentTurn) (string, error) {
		calls++
		return upper(ctx, tt)
	})
	ctx := context.Background()
	if _, err := f.Prompt(ctx, []acp.ContentBlock{acp.TextBlock("q")}); err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	got = append(got, f.Update(ctx, chunk("hello "))...)
	got = append(got, f.Update(ctx, []byte(`{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[]}}`))...)
	got = append(got, f.Update(ctx, chunk("world"))...)
	end, err := f.End(ctx)
	got = append(got, end...)
	if err != nil || texts(t, got) != "plan|HELLO WORLD" || calls != 1 {
		t.Errorf("got %q, %v, %d calls; want plan|HELLO WORLD in one call", texts(t, got), err, calls)
	}
}

// TestTimeoutPassAndFail: a sub-agent that does not answer within the
// plugin's timeout passes the prompt on unchanged with one warning
// (onError "pass"), or fails the turn naming the plugin ("fail").
func TestTimeoutPassAndFail(t *testing.T) {
	hang := func(ctx context.Context, _ AgentTurn) (string, error) { <-ctx.Done(); return "", ctx.Err() }
	for _, onError := range []string{schema.OnErrorPass, schema.OnErrorFail} {
		plugins := map[string]schema.Plugin{"slow": {Kind: schema.PluginAgent, Agent: "x", Timeout: "20ms", OnError: onError}}
		f, ev := newSession(t, plugins, []string{"slow"}, hang)
		got, err := promptText(t, f, "keep me")
		switch onError {
		case schema.OnErrorPass:
			if err != nil || got != "keep me" || ev.outcomes() != "slow:inbound:passed" || !strings.Contains(ev.steps[0].Error, "timed out after 20ms") {
				t.Errorf("pass: %q, %v, %s %+v", got, err, ev.outcomes(), ev.steps)
			}
		case schema.OnErrorFail:
			var fe *FailError
			if !errors.As(err, &fe) || fe.Plugin != "slow" || !strings.Contains(err.Error(), "plugin slow (inbound) failed: timed out after 20ms; the turn fails") {
				t.Errorf("fail: %q, %v", got, err)
			}
		}
	}
}

// TestRetry: a failed call is tried again, up to retries; the step
// counts its attempts.
func TestRetry(t *testing.T) {
	n := 0
	flaky := func(_ context.Context, tt AgentTurn) (string, error) {
		if n++; n < 3 {
			return "", errors.New("the sub-agent crashed")
		}
		return strings.ToUpper(tt.Prompt), nil
	}
	plugins := map[string]schema.Plugin{"tr": {Kind: schema.PluginAgent, Agent: "x", Retries: 2}}
	f, ev := newSession(t, plugins, []string{"tr"}, flaky)
	got, err := promptText(t, f, "abc")
	if err != nil || got != "ABC" || ev.steps[0].Attempts != 3 {
		t.Errorf("%q, %v, %+v", got, err, ev.steps)
	}
	// One retry is not enough for a sub-agent that always crashes: the
	// prompt goes on as it was, with the crash named.
	n = -100
	got, err = promptText(t, f, "abc")
	if err != nil || got != "abc" || !strings.Contains(ev.steps[1].Error, "the sub-agent crashed") || ev.steps[1].Attempts != 3 {
		t.Errorf("%q, %v, %+v", got, err, ev.steps)
	}
}

// TestBudget: past its calls per turn, a plugin fails as its onError
// says (one warning a turn); the next turn has its budget again, and an
// agent plugin's session budget is never given back.
func TestBudget(t *testing.T) {
	plugins := map[string]schema.Plugin{"up": {Kind: schema.PluginAgent, Agent: "x", On: schema.OnOutbound, Stream: schema.StreamChunk, Budget: 2, SessionBudget: 3}}
	f, ev := newSession(t, plugins, []string{"up"}, upper)
	ctx := context.Background()
	turn := func() string {
		if _, err := f.Prompt(ctx, []acp.ContentBlock{acp.TextBlock("q")}); err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		for _, s := range []string{"a", "b", "c", "d"} {
			got = append(got, f.Update(ctx, chunk(s))...)
		}
		if _, err := f.End(ctx); err != nil {
			t.Fatal(err)
		}
		return texts(t, got)
	}
	if got := turn(); got != "A|B|c|d" {
		t.Errorf("turn 1: %s", got)
	}
	if got := turn(); got != "A|b|c|d" {
		t.Errorf("turn 2: %s", got)
	}
	if got, want := ev.outcomes(), "up:outbound:ok up:outbound:ok up:outbound:passed up:outbound:ok up:outbound:passed"; got != want {
		t.Errorf("steps %s\nwant  %s", got, want)
	}
	if !strings.Contains(ev.steps[2].Error, "budget spent: 2 calls this turn") || !strings.Contains(ev.steps[4].Error, "3 sub-agent turns this session") {
		t.Errorf("%+v", ev.steps)
	}
}

// TestRedact: a redact plugin replaces its patterns in the prompt, in
// every string of an update (a tool call's title and content too, never
// the ids), and in what a log records (Set.Redact).
func TestRedact(t *testing.T) {
	plugins := map[string]schema.Plugin{"secrets": {Kind: schema.PluginRedact, Patterns: []string{`tok-[0-9a-f]{6}`}}}
	set, err := New(&schema.Config{Plugins: plugins}, []string{"secrets"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev := &events{}
	f := set.Filter(ev.emit)
	got, err := promptText(t, f, "use tok-abc123 now")
	if err != nil || got != "use [REDACTED] now" {
		t.Errorf("prompt: %q, %v", got, err)
	}
	call := `{"sessionId":"tok-abc123","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"curl -H tok-abc123","content":[{"type":"content","content":{"type":"text","text":"got tok-00ff00"}}]}}`
	out := f.Update(context.Background(), []byte(call))
	if s := string(out[0]); strings.Contains(s, `"tok-00ff00"`) || strings.Count(s, "tok-abc123") != 1 || !strings.Contains(s, `"title":"curl -H [REDACTED]"`) {
		t.Errorf("update: %s", s)
	}
	if got := set.Redact("prompt with tok-123456"); got != "prompt with [REDACTED]" {
		t.Errorf("Redact: %q", got)
	}
	for _, st := range ev.steps {
		if strings.Contains(fmt.Sprint(st), "tok-") {
			t.Errorf("a step shows the secret: %+v", st)
		}
	}
}

// TestInjectContext: an inbound agent plugin with inject "context" adds
// its reply as a resource block before the prompt, which stays.
func TestInjectContext(t *testing.T) {
	plugins := map[string]schema.Plugin{"search": {Kind: schema.PluginAgent, Agent: "x", Prompt: "find {{text}}", Inject: schema.InjectContext}}
	f, _ := newSession(t, plugins, []string{"search"}, upper)
	if got, err := promptText(t, f, "main.go"); err != nil || got != "resource:FIND MAIN.GO|main.go" {
		t.Errorf("%q, %v", got, err)
	}
}

// TestNoRunner: an agent plugin where no sub-agent can run passes (or
// fails) as any failure does; the prompt is never lost.
func TestNoRunner(t *testing.T) {
	plugins := map[string]schema.Plugin{"tr": {Kind: schema.PluginAgent, Agent: "x"}}
	f, ev := newSession(t, plugins, []string{"tr"}, nil)
	if got, err := promptText(t, f, "abc"); err != nil || got != "abc" || ev.outcomes() != "tr:inbound:passed" {
		t.Errorf("%q, %v, %s", got, err, ev.outcomes())
	}
}

// TestEmptyReply: a sub-agent that replies nothing has failed: the
// prompt goes on as it was, never replaced by nothing.
func TestEmptyReply(t *testing.T) {
	plugins := map[string]schema.Plugin{"tr": {Kind: schema.PluginAgent, Agent: "x"}}
	f, ev := newSession(t, plugins, []string{"tr"}, func(context.Context, AgentTurn) (string, error) { return " \n", nil })
	if got, err := promptText(t, f, "abc"); err != nil || got != "abc" || len(ev.steps) != 1 || ev.steps[0].Error != "the sub-agent's reply was empty" {
		t.Errorf("%q, %v, %+v", got, err, ev.steps)
	}
}

// TestOutboundFail: an outbound plugin whose onError is "fail" lets the
// message on unchanged and fails the turn at its end, naming the plugin.
func TestOutboundFail(t *testing.T) {
	plugins := map[string]schema.Plugin{"tr": {Kind: schema.PluginAgent, Agent: "x", On: schema.OnOutbound, OnError: schema.OnErrorFail}}
	f, _ := newSession(t, plugins, []string{"tr"}, func(context.Context, AgentTurn) (string, error) { return "", errors.New("exited (exit status 3)") })
	ctx := context.Background()
	if held := f.Update(ctx, chunk("answer")); len(held) != 0 {
		t.Fatalf("not held: %s", held)
	}
	out, err := f.End(ctx)
	if texts(t, out) != "answer" || err == nil || !strings.Contains(err.Error(), "plugin tr (outbound) failed: exited (exit status 3)") {
		t.Errorf("%s, %v", texts(t, out), err)
	}
}

// TestRedactFirst: redact plugins run first in both chains wherever they
// are listed, so that no sub-agent sees what they name.
func TestRedactFirst(t *testing.T) {
	var seen []string
	plugins := map[string]schema.Plugin{
		"tr":      {Kind: schema.PluginAgent, Agent: "x", On: schema.OnBoth, Stream: schema.StreamChunk},
		"secrets": {Kind: schema.PluginRedact, Patterns: []string{`tok-[0-9]+`}},
	}
	f, _ := newSession(t, plugins, []string{"tr", "secrets"}, func(_ context.Context, tt AgentTurn) (string, error) {
		seen = append(seen, tt.Prompt)
		return tt.Prompt, nil
	})
	if got, err := promptText(t, f, "in tok-1"); err != nil || got != "in [REDACTED]" {
		t.Errorf("inbound %q, %v", got, err)
	}
	if got := texts(t, f.Update(context.Background(), chunk("out tok-2"))); got != "out [REDACTED]" {
		t.Errorf("outbound %q", got)
	}
	if strings.Contains(strings.Join(seen, " "), "tok-") {
		t.Errorf("the sub-agent saw a secret: %q", seen)
	}
}

// fakeSubAgents counts the turns asked of one main session's sub-agents
// and whether they were closed.
type fakeSubAgents struct {
	turns  int
	closed bool
}

func (f *fakeSubAgents) Ask(_ context.Context, t AgentTurn) (string, error) {
	f.turns++
	return fmt.Sprintf("%s #%d", t.Prompt, f.turns), nil
}

func (f *fakeSubAgents) Close() { f.closed = true }

// TestSubAgentsPerSession: a session's sub-agents are made on its first
// agent plugin turn and asked again by the next turns; a second session
// gets its own; closing the session closes them, and a turn after that
// passes its text on unchanged (the sub-agent is gone).
func TestSubAgentsPerSession(t *testing.T) {
	made := 0
	var all []*fakeSubAgents
	set, err := New(&schema.Config{Plugins: map[string]schema.Plugin{"tr": {Kind: schema.PluginAgent, Agent: "x"}}}, []string{"tr"},
		Options{SubAgents: func() SubAgents {
			made++
			f := &fakeSubAgents{}
			all = append(all, f)
			return f
		}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := set.Filter(nil), set.Filter(nil)
	for i, want := range []string{"x #1", "x #2"} {
		if got, err := promptText(t, a, "x"); err != nil || got != want {
			t.Errorf("turn %d: %q %v", i+1, got, err)
		}
	}
	if got, err := promptText(t, b, "y"); err != nil || got != "y #1" || made != 2 {
		t.Errorf("another session: %q %v, %d made", got, err, made)
	}
	a.(acpclient.FilterCloser).Close()
	if !all[0].closed || all[1].closed {
		t.Errorf("closed: %v %v", all[0].closed, all[1].closed)
	}
	if got, err := promptText(t, a, "z"); err != nil || got != "z" || made != 2 {
		t.Errorf("after Close: %q %v, %d made", got, err, made)
	}
}
