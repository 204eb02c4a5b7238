package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// The tools of `actctl mcp` (README, "Agents that use agents: actctl mcp").
const (
	toolListAgents  = "list_agents"
	toolAgentStatus = "agent_status"
	toolRunAgent    = "run_agent"
	toolPromptAgent = "prompt_agent"
)

var allTools = []string{toolListAgents, toolAgentStatus, toolRunAgent, toolPromptAgent}

// runAgentTimeout bounds one run_agent turn, as `run --timeout` does by
// default.
const runAgentTimeout = 30 * time.Minute

func init() {
	register(&cli.Command{
		Name:  "mcp",
		Usage: "serve the workspace's agents as MCP tools on stdio (list_agents, agent_status, run_agent, prompt_agent)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "as", EnvVars: []string{launch.AgentVar}, Usage: "the calling `AGENT`: its archetype decides which tools it gets (default: a person, every tool)"},
		},
		OnUsageError: usageErrors,
		Action:       mcpCmd,
	})
}

func mcpCmd(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("mcp: takes no arguments")
	}
	g := globalsOf(c)
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), launch.Signals...)
	defer stop()
	// The chain is found up the process tree, not trusted to the
	// backend's passing the variable on; set here, it is the one every
	// backend this server starts extends (launch.Resolve).
	chain := launch.CallerChain()
	if err := os.Setenv(launch.ChainVar, strings.Join(chain, ",")); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	s := &mcpServer{g: g, root: cfg.Root, caller: c.String("as"), allowed: toolsFor(cfg, c.String("as")), stop: ctx, chain: chain}
	// The tools capability is declared even for a caller allowed none, so
	// that tools/list answers (an empty list) instead of failing.
	srv := mcp.NewServer(&mcp.Implementation{Name: "actctl", Version: actctlVersion()},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	s.register(srv)
	// stdout is the protocol: nothing else may write there. When the
	// client goes (stdin closed) or a signal comes, running turns are
	// cancelled and their backends stopped before actctl exits.
	err = srv.Run(ctx, stdio(g))
	stop()
	s.turns.Wait()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// stdio is the server's transport on stdin and stdout. A message over the
// SDK's line limit is answered with a JSON-RPC error and said on stderr,
// and the server goes on serving (the SDK alone ended the session without
// a word, exit 0).
func stdio(g *globals) mcp.Transport {
	limit := mcp.DefaultMaxLineLength
	out := lineframe.NewWriter(os.Stdout)
	in := lineframe.NewReader(os.Stdin, out, limit, func(n int64) {
		fmt.Fprintf(g.Stderr, "actctl: mcp: refused a message of %d bytes (the limit is %d): answered with a JSON-RPC error\n", n, limit)
	})
	return &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1}
}

// mcpServer answers the tools for one workspace and one caller.
type mcpServer struct {
	g      *globals
	root   string
	caller string
	// chain is the delegation chain this server runs in
	// (launch.CallerChain): the agents whose turns wait, directly or not,
	// on this one's.
	chain []string
	// allowed are the tools the caller may use.
	allowed map[string]bool
	// stop is cancelled when the server ends; turns are the run_agent
	// calls still running.
	stop  context.Context
	turns sync.WaitGroup
}

// toolsFor is what the caller may use (README, "actctl mcp"): a person
// (no --as) and tool agents, which a person drives, every tool; employee
// agents every tool; service agents list, status and prompt; repo agents,
// agents of other archetypes and names this workspace does not declare,
// none.
func toolsFor(cfg *schema.Config, caller string) map[string]bool {
	allow := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	if caller == "" {
		return allow(allTools...)
	}
	r, err := cfg.Resolve(caller)
	if err != nil {
		return allow()
	}
	switch r.ArchetypeName {
	case schema.ArchTool, schema.ArchEmployee:
		return allow(allTools...)
	case schema.ArchService:
		return allow(toolListAgents, toolAgentStatus, toolPromptAgent)
	}
	return allow()
}

// register adds the caller's tools, and answers a call of any other tool
// with an error naming what the caller may use.
func (s *mcpServer) register(srv *mcp.Server) {
	if s.allowed[toolListAgents] {
		mcp.AddTool(srv, &mcp.Tool{Name: toolListAgents, Description: "List the workspace's agents: name, template, backend, archetype and the interaction modes each offers."}, s.listAgents)
	}
	if s.allowed[toolAgentStatus] {
		mcp.AddTool(srv, &mcp.Tool{Name: toolAgentStatus, Description: "One agent's status as `actctl status` reports it: Synced, OutOfSync or Missing, with details and its process record."}, s.agentStatus)
	}
	if s.allowed[toolRunAgent] {
		mcp.AddTool(srv, &mcp.Tool{Name: toolRunAgent, Description: "Run one turn with an agent (or an ephemeral agent made from a template), as `actctl run`: returns its reply text and stop reason. Permission requests are answered by the agent's permissions preset."}, s.runAgent)
	}
	if s.allowed[toolPromptAgent] {
		mcp.AddTool(srv, &mcp.Tool{Name: toolPromptAgent, Description: "Prompt an agent that `actctl up` keeps running (an employee queues a task)."}, s.promptAgent)
	}
	srv.AddReceivingMiddleware(s.refuse)
}

// refuse answers a call of a tool the caller may not use with a tool
// error saying so (instead of the SDK's bare "unknown tool").
func (s *mcpServer) refuse(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil || s.allowed[call.Params.Name] || !contains(allTools, call.Params.Name) {
			return next(ctx, method, req)
		}
		res := &mcp.CallToolResult{}
		res.SetError(s.refusal(call.Params.Name))
		return res, nil
	}
}

func (s *mcpServer) refusal(tool string) error {
	var may []string
	for _, t := range allTools {
		if s.allowed[t] {
			may = append(may, t)
		}
	}
	what := "no tools"
	if len(may) > 0 {
		what = "only " + strings.Join(may, ", ")
	}
	return fmt.Errorf("tool %s is not available to agent %q: its archetype allows %s (README, \"actctl mcp\")", tool, s.caller, what)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// load reads the workspace afresh for one call (the config may have
// changed since the server started); its warnings go to warn.
func (s *mcpServer) load(warn *syncBuffer) (*schema.Config, *globals, error) {
	g := &globals{Dir: s.root, Home: s.g.Home, Output: "text", NoColor: true, Stdout: &syncBuffer{}, Stderr: warn}
	cfg, err := g.Load()
	return cfg, g, err
}

// mcpAgent is one agent in list_agents (docs/json.md).
type mcpAgent struct {
	Name      string   `json:"name"`
	Template  string   `json:"template"`
	Backend   string   `json:"backend"`
	Archetype string   `json:"archetype"`
	Modes     []string `json:"modes" jsonschema:"the interaction modes the agent offers (run: run_agent can use it)"`
}

type listAgentsOut struct {
	Agents []mcpAgent `json:"agents"`
}

func (s *mcpServer) listAgents(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, listAgentsOut, error) {
	cfg, _, err := s.load(&syncBuffer{})
	if err != nil {
		return nil, listAgentsOut{}, err
	}
	out := listAgentsOut{Agents: []mcpAgent{}}
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		r, err := cfg.Resolve(name)
		if err != nil {
			return nil, listAgentsOut{}, err
		}
		modes := append([]string{}, r.Offers()...)
		out.Agents = append(out.Agents, mcpAgent{Name: name, Template: r.TemplateName, Backend: r.BackendName, Archetype: r.ArchetypeName, Modes: modes})
	}
	return nil, out, nil
}

type agentIn struct {
	Agent string `json:"agent" jsonschema:"the agent's name"`
}

func (s *mcpServer) agentStatus(ctx context.Context, _ *mcp.CallToolRequest, in agentIn) (*mcp.CallToolResult, agentStatusJSON, error) {
	cfg, _, err := s.load(&syncBuffer{})
	if err != nil {
		return nil, agentStatusJSON{}, err
	}
	if _, ok := cfg.Agents[in.Agent]; !ok {
		return nil, agentStatusJSON{}, unknownAgent(cfg, in.Agent)
	}
	sts, err := agentStatuses(cfg, []string{in.Agent})
	if err != nil {
		return nil, agentStatusJSON{}, err
	}
	if len(sts) != 1 {
		return nil, agentStatusJSON{}, fmt.Errorf("agent %q: no status", in.Agent)
	}
	return nil, sts[0], nil
}

type runAgentIn struct {
	Agent    string `json:"agent,omitempty" jsonschema:"the agent to run (give agent or template)"`
	Template string `json:"template,omitempty" jsonschema:"run an ephemeral agent made from this template, removed afterwards"`
	Prompt   string `json:"prompt" jsonschema:"the prompt"`
	Cwd      string `json:"cwd,omitempty" jsonschema:"the client's project directory, inside the workspace root (relative: to the root; default: the directory actctl mcp runs in when that is inside the root, else the root)"`
}

// runAgentOut is run_agent's result (docs/json.md).
type runAgentOut struct {
	Agent      string `json:"agent"`
	Reply      string `json:"reply"`
	StopReason string `json:"stopReason"`
	SessionID  string `json:"sessionId"`
	ExitCode   int    `json:"exitCode" jsonschema:"the exit code actctl run would have (docs/run.md)"`
	Error      string `json:"error,omitempty"`
	Log        string `json:"log,omitempty" jsonschema:"tool calls, permission decisions and warnings, one a line"`
}

// runAgent is one `actctl run` turn. A turn that did not complete (no
// stop reason: the agent could not start, crashed, timed out) is a tool
// error; a completed one is a result with its stop reason and exit code.
func (s *mcpServer) runAgent(ctx context.Context, req *mcp.CallToolRequest, in runAgentIn) (*mcp.CallToolResult, runAgentOut, error) {
	switch {
	case (in.Agent == "") == (in.Template == ""):
		return nil, runAgentOut{}, errors.New("run_agent: give exactly one of agent or template")
	case strings.TrimSpace(in.Prompt) == "":
		return nil, runAgentOut{}, errors.New("run_agent: the prompt is empty")
	}
	if err := s.delegate("run_agent", in.Agent); err != nil {
		return nil, runAgentOut{}, err
	}
	cwd, err := s.sessionCwd(in.Cwd)
	if err != nil {
		return nil, runAgentOut{}, fmt.Errorf("run_agent: %w", err)
	}
	s.turns.Add(1)
	defer s.turns.Done()
	log := &syncBuffer{}
	_, g, err := s.load(log)
	if err != nil {
		return nil, runAgentOut{}, err
	}
	reply := &syncBuffer{}
	g.Stdout = progressWriter{ctx, req, reply}
	ctx, cancel := context.WithTimeoutCause(ctx, runAgentTimeout, &runCause{exitTimeout, "timed out after " + runAgentTimeout.String()})
	defer cancel()
	defer context.AfterFunc(s.stop, cancel)()
	name, res, err := runTurn(ctx, g, agentSpec{agent: in.Agent, template: in.Template, cwd: cwd}, in.Prompt)
	if err != nil && res.StopReason == "" {
		if l := strings.TrimSpace(log.String()); l != "" {
			err = fmt.Errorf("%w\n%s", err, l)
		}
		return nil, runAgentOut{}, err
	}
	out := runAgentOut{Agent: name, Reply: reply.String(), StopReason: string(res.StopReason), SessionID: res.SessionID, Log: log.String()}
	if err != nil {
		out.Error = err.Error()
		out.ExitCode = exitError
		var ec *exitCode
		if errors.As(err, &ec) {
			out.ExitCode = ec.code
		}
	}
	return nil, out, nil
}

// sessionCwd is the client project of a run_agent turn: cwd, which must
// lie inside the workspace root (schema.DirInside: symlinks resolved, ".."
// refused), so that an agent never places an agent's files elsewhere
// (docs/run.md, "actctl mcp"); without one, the directory the server runs
// in when that is inside the root, else the root.
func (s *mcpServer) sessionCwd(cwd string) (string, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err == nil {
			if d, err := schema.DirInside(s.root, wd); err == nil {
				return d, nil
			}
		}
		cwd = s.root
	}
	return schema.DirInside(s.root, cwd)
}

// delegate refuses a run or prompt of target (empty for a template's
// new agent) that would close a loop in the delegation chain — a turn
// waiting on itself, never to end — or make it longer than
// launch.MaxChain (README, "actctl mcp").
func (s *mcpServer) delegate(tool, target string) error {
	path := strings.Join(append(slices.Clone(s.chain), cmp.Or(target, "(new agent)")), " -> ")
	switch {
	case target != "" && slices.Contains(s.chain, target):
		return fmt.Errorf("%s: agent %q is already in this delegation chain (%s): its turn would wait on itself", tool, target, path)
	case len(s.chain) >= launch.MaxChain:
		return fmt.Errorf("%s: the delegation chain %s would be %d agents deep; actctl allows %d", tool, path, len(s.chain)+1, launch.MaxChain)
	}
	return nil
}

type promptAgentIn struct {
	Agent  string `json:"agent" jsonschema:"the agent to prompt"`
	Prompt string `json:"prompt" jsonschema:"the prompt"`
}

// promptAgentOut is prompt_agent's result (docs/json.md).
type promptAgentOut struct {
	Agent      string `json:"agent"`
	Task       uint64 `json:"task" jsonschema:"the task id in the agent's log (actctl logs AGENT --task ID)"`
	Reply      string `json:"reply"`
	StopReason string `json:"stopReason"`
	SessionID  string `json:"sessionId"`
	Error      string `json:"error,omitempty"`
}

// promptAgent goes through `actctl up`'s control socket, as `actctl
// prompt` does: an employee queues a task and the tool waits for its
// result; a service answers in a new session. Without a running up it
// says so.
func (s *mcpServer) promptAgent(ctx context.Context, req *mcp.CallToolRequest, in promptAgentIn) (*mcp.CallToolResult, promptAgentOut, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, promptAgentOut{}, errors.New("prompt_agent: the prompt is empty")
	}
	if err := s.delegate("prompt_agent", in.Agent); err != nil {
		return nil, promptAgentOut{}, err
	}
	cfg, g, err := s.load(&syncBuffer{})
	if err != nil {
		return nil, promptAgentOut{}, err
	}
	if _, ok := cfg.Agents[in.Agent]; !ok {
		return nil, promptAgentOut{}, unknownAgent(cfg, in.Agent)
	}
	s.turns.Add(1)
	defer s.turns.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stop, cancel)()
	reply := &syncBuffer{}
	w := progressWriter{ctx, req, reply}
	var res up.Outcome
	err = callUp(ctx, g, control.Request{Op: control.OpPrompt, Agent: in.Agent, Text: in.Prompt, Wait: true, Source: up.SourceMCP}, func(f control.Frame) {
		var e acpclient.Event
		if f.Kind == "event" && json.Unmarshal(f.Data, &e) == nil && e.Kind == acpclient.EventText {
			_, _ = w.Write([]byte(e.Text))
		}
	}, &res)
	if res.Agent == "" {
		return nil, promptAgentOut{}, err
	}
	return nil, promptAgentOut{Agent: res.Agent, Task: res.Task, Reply: reply.String(), StopReason: res.StopReason, SessionID: res.SessionID, Error: res.Error}, nil
}

// progressWriter collects a run's reply text and, when the caller asked
// for progress (a progressToken), sends each piece as it streams in a
// notifications/progress message, the progress being the bytes so far.
type progressWriter struct {
	ctx   context.Context
	req   *mcp.CallToolRequest
	reply *syncBuffer
}

func (w progressWriter) Write(p []byte) (int, error) {
	n, _ := w.reply.Write(p)
	if tok := w.req.Params.GetProgressToken(); tok != nil {
		// Best effort: a client that is gone does not stop the turn.
		_ = w.req.Session.NotifyProgress(w.ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: string(p), Progress: float64(w.reply.Len())})
	}
	return n, nil
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (a run's
// observer and its backend's callbacks; the output of a background
// process in tests).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
