package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// workspace declares one agent of each archetype (README, "actctl mcp").
func workspace(t *testing.T) *schema.Config {
	t.Helper()
	root, home := t.TempDir(), t.TempDir()
	cue := `package actant

templates: {
	tl: {backend: "claude-code", archetype: "tool"}
	rp: {backend: "claude-code", archetype: "repo"}
	sv: {backend: "claude-code", archetype: "service"}
	em: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}}
}
agents: {
	helper: template: "tl"
	builder: template: "rp"
	server: template: "sv"
	worker: template: "em"
}
`
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(cue), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.Load(schema.LoadOptions{Dir: root, Cwd: root, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// fakeRunner answers from cfg and records every call it gets; run and up,
// if set, answer Run and Up.
type fakeRunner struct {
	cfg *schema.Config
	run func(context.Context, Turn, io.Writer, io.Writer) (TurnResult, error)
	up  func(context.Context, control.Request, func(control.Frame), any) error

	mu    sync.Mutex
	calls []string
}

func (f *fakeRunner) called(what string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, what)
}

// ran is the calls that ran a turn or reached up.
func (f *fakeRunner) ran() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if c != "load" && c != "status" {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeRunner) Load(warn io.Writer) (*schema.Config, error) {
	f.called("load")
	return f.cfg, nil
}

func (f *fakeRunner) Status(cfg *schema.Config, agent string) (AgentStatusOut, error) {
	f.called("status")
	out := AgentStatusOut{Process: &Process{Status: "running", PID: 42}}
	out.Name, out.Status = agent, "Synced"
	return out, nil
}

func (f *fakeRunner) Run(ctx context.Context, t Turn, reply, log io.Writer) (TurnResult, error) {
	f.called("run " + t.Agent + t.Template)
	if f.run == nil {
		return TurnResult{}, errors.New("no run in this test")
	}
	return f.run(ctx, t, reply, log)
}

func (f *fakeRunner) Up(ctx context.Context, req control.Request, onFrame func(control.Frame), result any) error {
	f.called("up " + req.Agent)
	if f.up == nil {
		return control.ErrNoUp
	}
	return f.up(ctx, req, onFrame, result)
}

// connect serves s in process over the SDK's in-memory transport and
// returns a client session; the cleanup closes it and waits for Serve.
func connect(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return cs
}

// call calls a tool and returns its text and whether it is a tool error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	return res, strings.Join(text, "\n")
}

// harmless are arguments with which each tool is refused before it runs
// anything (an empty prompt), or reads only.
var harmless = map[string]map[string]any{
	ListAgents:   {},
	AgentStatus:  {"agent": "helper"},
	RunAgent:     {"agent": "helper", "prompt": " "},
	PromptAgent:  {"agent": "worker", "prompt": " "},
	CanvasUpdate: {"html": "<p>x</p>"},
	Subscribe:    {"event": "idle", "prompt": " "},
	Unsubscribe:  {"id": ""},
}

// TestToolsByCaller: the table decides for each caller both tools/list and
// the refusal of every other tool, which names what the caller may use.
func TestToolsByCaller(t *testing.T) {
	cfg := workspace(t)
	all := []string{AgentStatus, CanvasUpdate, ListAgents, PromptAgent, RunAgent, Subscribe, Unsubscribe}
	for _, tc := range []struct {
		caller string
		want   []string
		may    string
	}{
		{"", []string{AgentStatus, ListAgents, PromptAgent, RunAgent, Subscribe, Unsubscribe}, ""},
		{"helper", []string{AgentStatus, ListAgents, PromptAgent, RunAgent}, "only list_agents, agent_status, run_agent, prompt_agent"},
		{"worker", all, ""},
		{"server", []string{AgentStatus, ListAgents, PromptAgent}, "only list_agents, agent_status, prompt_agent"},
		{"builder", nil, "no tools"},
		{"ghost", nil, "no tools"},
	} {
		t.Run(fmt.Sprintf("caller=%q", tc.caller), func(t *testing.T) {
			f := &fakeRunner{cfg: cfg}
			cs := connect(t, New(cfg, Options{Root: cfg.Root, Caller: tc.caller, Runner: f}))
			lt, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tl := range lt.Tools {
				got = append(got, tl.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("tools/list = %v, want %v", got, tc.want)
			}
			for _, name := range all {
				if slices.Contains(tc.want, name) {
					continue
				}
				res, text := call(t, cs, name, harmless[name])
				want := fmt.Sprintf("tool %s is not available to agent %q: its archetype allows %s", name, tc.caller, tc.may)
				if !res.IsError || !strings.Contains(text, want) {
					t.Errorf("%s: %q (error %v), want an error containing %q", name, text, res.IsError, want)
				}
			}
			if r := f.ran(); len(r) > 0 {
				t.Errorf("the runner ran %v", r)
			}
		})
	}
}

// TestListAndStatus: list_agents lists every agent with its archetype and
// modes; agent_status returns the Runner's status, and an unknown agent is
// an error with "did you mean".
func TestListAndStatus(t *testing.T) {
	cfg := workspace(t)
	cs := connect(t, New(cfg, Options{Root: cfg.Root, Runner: &fakeRunner{cfg: cfg}}))
	res, text := call(t, cs, ListAgents, nil)
	for _, want := range []string{`"name":"builder"`, `"archetype":"repo"`, `"name":"worker"`, `"archetype":"employee"`, `"modes":[`} {
		if res.IsError || !strings.Contains(text, want) {
			t.Errorf("list_agents: %s (error %v), want %s", text, res.IsError, want)
		}
	}
	res, text = call(t, cs, AgentStatus, map[string]any{"agent": "server"})
	if res.IsError || !strings.Contains(text, `"name":"server"`) || !strings.Contains(text, `"pid":42`) {
		t.Errorf("agent_status: %s (error %v)", text, res.IsError)
	}
	res, text = call(t, cs, AgentStatus, map[string]any{"agent": "servr"})
	if want := `unknown agent "servr" (did you mean "server"?)`; !res.IsError || text != want {
		t.Errorf("agent_status servr: %q (error %v), want %q", text, res.IsError, want)
	}
}

// TestRunAgentRefusals: every bad call of run_agent and prompt_agent is a
// tool error saying why, and nothing is run or sent to up.
func TestRunAgentRefusals(t *testing.T) {
	cfg := workspace(t)
	outside := t.TempDir()
	deep := make([]string, launch.MaxChain)
	for i := range deep {
		deep[i] = fmt.Sprintf("a%d", i)
	}
	for _, tc := range []struct {
		name  string
		chain []string
		tool  string
		args  map[string]any
		want  string
	}{
		{"neither", nil, RunAgent, map[string]any{"prompt": "hi"}, "run_agent: give exactly one of agent or template"},
		{"both", nil, RunAgent, map[string]any{"agent": "helper", "template": "tl", "prompt": "hi"}, "run_agent: give exactly one of agent or template"},
		{"empty prompt", nil, RunAgent, map[string]any{"agent": "helper", "prompt": " \n\t"}, "run_agent: the prompt is empty"},
		{"cwd above", nil, RunAgent, map[string]any{"agent": "helper", "prompt": "hi", "cwd": "../x"}, "run_agent: "},
		{"cwd elsewhere", nil, RunAgent, map[string]any{"agent": "helper", "prompt": "hi", "cwd": outside}, "run_agent: "},
		{"cycle", []string{"worker", "helper"}, RunAgent, map[string]any{"agent": "worker", "prompt": "hi"},
			`run_agent: agent "worker" is already in this delegation chain (worker -> helper -> worker): its turn would wait on itself`},
		{"too deep", deep, RunAgent, map[string]any{"template": "tl", "prompt": "hi"},
			fmt.Sprintf("run_agent: the delegation chain %s -> (new agent) would be %d agents deep; actctl allows %d", strings.Join(deep, " -> "), launch.MaxChain+1, launch.MaxChain)},
		{"prompt empty", nil, PromptAgent, map[string]any{"agent": "worker", "prompt": ""}, "prompt_agent: the prompt is empty"},
		{"prompt cycle", []string{"worker"}, PromptAgent, map[string]any{"agent": "worker", "prompt": "hi"},
			`prompt_agent: agent "worker" is already in this delegation chain (worker -> worker)`},
		{"prompt unknown", nil, PromptAgent, map[string]any{"agent": "wroker", "prompt": "hi"}, `unknown agent "wroker" (did you mean "worker"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRunner{cfg: cfg}
			cs := connect(t, New(cfg, Options{Root: cfg.Root, Chain: tc.chain, Runner: f}))
			res, text := call(t, cs, tc.tool, tc.args)
			if !res.IsError || !strings.HasPrefix(text, tc.want) {
				t.Errorf("%q (error %v), want an error starting %q", text, res.IsError, tc.want)
			}
			if r := f.ran(); len(r) > 0 {
				t.Errorf("the runner ran %v", r)
			}
		})
	}
}

// TestRunAgentResult: a completed turn is a result with its reply, stop
// reason and, when it did not end with exit 0, the error and exit code; a
// turn that did not complete is a tool error followed by its log.
func TestRunAgentResult(t *testing.T) {
	cfg := workspace(t)
	for _, tc := range []struct {
		name    string
		res     TurnResult
		err     error
		isError bool
		want    []string
	}{
		{"end_turn", TurnResult{Agent: "helper", StopReason: "end_turn", SessionID: "s1"}, nil, false,
			[]string{`"reply":"hello"`, `"stopReason":"end_turn"`, `"sessionId":"s1"`, `"exitCode":0`, `"log":"tool: read\n"`}},
		{"refusal", TurnResult{Agent: "helper", StopReason: "refusal", ExitCode: 3}, errors.New("the agent refused"), false,
			[]string{`"stopReason":"refusal"`, `"exitCode":3`, `"error":"the agent refused"`}},
		{"no start", TurnResult{}, errors.New("backend missing"), true, []string{"backend missing\ntool: read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got Turn
			f := &fakeRunner{cfg: cfg, run: func(ctx context.Context, turn Turn, reply, log io.Writer) (TurnResult, error) {
				got = turn
				io.WriteString(reply, "hello")
				io.WriteString(log, "tool: read\n")
				return tc.res, tc.err
			}}
			cs := connect(t, New(cfg, Options{Root: cfg.Root, Runner: f}))
			res, text := call(t, cs, RunAgent, map[string]any{"agent": "helper", "prompt": "hi", "cwd": "."})
			if res.IsError != tc.isError {
				t.Fatalf("%s: error %v, want %v", text, res.IsError, tc.isError)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) && !strings.Contains(strings.ReplaceAll(text, `\n`, "\n"), w) {
					t.Errorf("%s: want %q", text, w)
				}
			}
			if want := (Turn{Agent: "helper", Cwd: got.Cwd, Prompt: "hi", Timeout: runAgentTimeout}); got != want || got.Cwd == "" {
				t.Errorf("turn %+v, want %+v with the root as cwd", got, want)
			}
		})
	}
}

// TestPromptAgentThroughUp: prompt_agent sends one waiting prompt to up,
// streams the text events into the reply and returns up's outcome; without
// up it is a tool error saying so.
func TestPromptAgentThroughUp(t *testing.T) {
	cfg := workspace(t)
	var req control.Request
	f := &fakeRunner{cfg: cfg, up: func(ctx context.Context, r control.Request, onFrame func(control.Frame), result any) error {
		req = r
		onFrame(control.Frame{Kind: "event", Data: []byte(`{"kind":"text","text":"done"}`)})
		*result.(*up.Outcome) = up.Outcome{Agent: r.Agent, Task: 7, StopReason: "end_turn"}
		return nil
	}}
	cs := connect(t, New(cfg, Options{Root: cfg.Root, Runner: f}))
	res, text := call(t, cs, PromptAgent, map[string]any{"agent": "worker", "prompt": "hi"})
	if res.IsError || !strings.Contains(text, `"task":7`) || !strings.Contains(text, `"reply":"done"`) {
		t.Errorf("prompt_agent: %s (error %v)", text, res.IsError)
	}
	if want := (control.Request{Op: control.OpPrompt, Agent: "worker", Text: "hi", Wait: true, Source: up.SourceMCP}); req.Op != want.Op || req.Agent != want.Agent || req.Text != want.Text || !req.Wait || req.Source != want.Source {
		t.Errorf("request %+v, want %+v", req, want)
	}

	f.up = nil
	res, text = call(t, cs, PromptAgent, map[string]any{"agent": "worker", "prompt": "hi"})
	if !res.IsError || text != control.ErrNoUp.Error() {
		t.Errorf("without up: %q (error %v), want %q", text, res.IsError, control.ErrNoUp)
	}
}

// TestServeStopsTurns: when the client goes, or the context of Serve ends
// (a signal), the running turn is cancelled and Serve returns only after
// it has returned.
func TestServeStopsTurns(t *testing.T) {
	cfg := workspace(t)
	for _, how := range []string{"client gone", "signal"} {
		t.Run(how, func(t *testing.T) {
			started, ended := make(chan struct{}), make(chan error, 1)
			f := &fakeRunner{cfg: cfg, run: func(ctx context.Context, _ Turn, _, _ io.Writer) (TurnResult, error) {
				close(started)
				<-ctx.Done()
				ended <- ctx.Err()
				return TurnResult{}, ctx.Err()
			}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// The pipe, not the SDK's in-memory transport: its client
			// session's Close waits for the call in flight.
			c, sc := net.Pipe()
			served := make(chan error, 1)
			go func() {
				served <- New(cfg, Options{Root: cfg.Root, Runner: f}).Serve(ctx, &mcp.IOTransport{Reader: sc, Writer: sc})
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: c, Writer: c}, nil)
			if err != nil {
				t.Fatal(err)
			}
			go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: RunAgent, Arguments: map[string]any{"agent": "helper", "prompt": "hi"}})
			<-started
			if how == "signal" {
				cancel()
			} else {
				c.Close()
			}
			if err := <-served; err != nil {
				t.Errorf("Serve: %v", err)
			}
			select {
			case err := <-ended:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("the turn ended with %v, want context.Canceled", err)
				}
			default:
				t.Error("Serve returned before the running turn did")
			}
			c.Close()
			cs.Wait()
		})
	}
}

// failing is a transport whose reads fail.
type failing struct{ err error }

func (f failing) Read([]byte) (int, error)    { return 0, f.err }
func (f failing) Write(p []byte) (int, error) { return len(p), nil }
func (f failing) Close() error                { return nil }

// TestServeReportsFailure: a session that fails while the server was not
// stopped is Serve's error (actctl mcp exits 1 saying so); before, the
// check came after Serve's own cancel and every failure exited 0.
func TestServeReportsFailure(t *testing.T) {
	cfg := workspace(t)
	boom := errors.New("disk on fire")
	err := New(cfg, Options{Root: cfg.Root, Runner: &fakeRunner{cfg: cfg}}).Serve(context.Background(), &mcp.IOTransport{Reader: failing{boom}, Writer: failing{boom}})
	if !errors.Is(err, boom) {
		t.Errorf("Serve = %v, want %v", err, boom)
	}
}

// TestRunAgentProtectedCwd: run_agent's cwd may not lie in a directory no
// agent may write (.git, .actant, cue.mod, at any depth, also through a
// symlink): the session cwd is a root of the client, and a root there
// would open what it protects. The tool error says why; nothing runs
// (issue #30 item 13).
func TestRunAgentProtectedCwd(t *testing.T) {
	cfg := workspace(t)
	for _, d := range []string{".git/hooks", ".actant/run", "sub/.git", "cue.mod/pkg", "sub/.Actant", "src"} {
		if err := os.MkdirAll(filepath.Join(cfg.Root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".git", filepath.Join(cfg.Root, "gitlink")); err != nil {
		t.Fatal(err)
	}
	for cwd, why := range map[string]string{
		".git": "it is inside .git/", ".git/hooks": "it is inside .git/", "gitlink": "it is inside .git/",
		".actant": "it is inside .actant/", ".actant/run": "it is inside .actant/", "sub/.Actant": "it is inside .actant/",
		"sub/.git": "it is inside .git/", "cue.mod/pkg": "it is inside cue.mod/",
	} {
		f := &fakeRunner{cfg: cfg}
		cs := connect(t, New(cfg, Options{Root: cfg.Root, Runner: f}))
		res, text := call(t, cs, RunAgent, map[string]any{"agent": "helper", "prompt": "hi", "cwd": cwd})
		if !res.IsError || !strings.HasPrefix(text, "run_agent: cwd "+cwd+": ") || !strings.Contains(text, "cannot be an agent's session cwd: "+why) {
			t.Errorf("cwd %s: %q (error %v), want the reason %q", cwd, text, res.IsError, why)
		}
		if r := f.ran(); len(r) > 0 {
			t.Errorf("cwd %s: the runner ran %v", cwd, r)
		}
	}
	f := &fakeRunner{cfg: cfg}
	cs := connect(t, New(cfg, Options{Root: cfg.Root, Runner: f}))
	call(t, cs, RunAgent, map[string]any{"agent": "helper", "prompt": "hi", "cwd": "src"})
	if r := f.ran(); len(r) != 1 {
		t.Errorf("cwd src: the runner ran %v", r)
	}
}
