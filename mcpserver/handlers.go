package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// runAgentTimeout bounds one run_agent turn, as `run --timeout` does by
// default.
const runAgentTimeout = 30 * time.Minute

// Agent is one agent in list_agents (docs/json.md).
type Agent struct {
	Name      string   `json:"name"`
	Template  string   `json:"template"`
	Backend   string   `json:"backend"`
	Archetype string   `json:"archetype"`
	Modes     []string `json:"modes" jsonschema:"the interaction modes the agent offers (run: run_agent can use it)"`
}

// ListAgentsOut is list_agents's result (docs/json.md).
type ListAgentsOut struct {
	Agents []Agent `json:"agents"`
}

func (s *Server) listAgents(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, ListAgentsOut, error) {
	cfg, err := s.runner.Load(io.Discard)
	if err != nil {
		return nil, ListAgentsOut{}, err
	}
	out := ListAgentsOut{Agents: []Agent{}}
	for _, name := range slices.Sorted(maps.Keys(cfg.Agents)) {
		r, err := cfg.Resolve(name)
		if err != nil {
			return nil, ListAgentsOut{}, err
		}
		modes := append([]string{}, r.Offers()...)
		out.Agents = append(out.Agents, Agent{Name: name, Template: r.TemplateName, Backend: r.BackendName, Archetype: r.ArchetypeName, Modes: modes})
	}
	return nil, out, nil
}

// AgentStatusOut is agent_status's result: one agent of `status -o json`
// (docs/json.md).
type AgentStatusOut struct {
	reconcile.AgentStatus
	Process *Process `json:"process,omitempty"`
}

// Process is the process record in AgentStatusOut.
type Process struct {
	Status    string `json:"status"`
	PID       int    `json:"pid,omitempty"`
	Ownership string `json:"processOwnership,omitempty"`
	// Set when the running actctl up holds the agent.
	Up *up.AgentStatus `json:"up,omitempty"`
}

type agentIn struct {
	Agent string `json:"agent" jsonschema:"the agent's name"`
}

func (s *Server) agentStatus(ctx context.Context, _ *mcp.CallToolRequest, in agentIn) (*mcp.CallToolResult, AgentStatusOut, error) {
	cfg, err := s.runner.Load(io.Discard)
	if err != nil {
		return nil, AgentStatusOut{}, err
	}
	if _, ok := cfg.Agents[in.Agent]; !ok {
		return nil, AgentStatusOut{}, agentprep.UnknownAgent(cfg, in.Agent)
	}
	st, err := s.runner.Status(cfg, in.Agent)
	if err != nil {
		return nil, AgentStatusOut{}, err
	}
	return nil, st, nil
}

type runAgentIn struct {
	Agent    string `json:"agent,omitempty" jsonschema:"the agent to run (give agent or template)"`
	Template string `json:"template,omitempty" jsonschema:"run an ephemeral agent made from this template, removed afterwards"`
	Prompt   string `json:"prompt" jsonschema:"the prompt"`
	Cwd      string `json:"cwd,omitempty" jsonschema:"the client's project directory, inside the workspace root (relative: to the root; default: the directory actctl mcp runs in when that is inside the root, else the root)"`
}

// RunAgentOut is run_agent's result (docs/json.md).
type RunAgentOut struct {
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
func (s *Server) runAgent(ctx context.Context, req *mcp.CallToolRequest, in runAgentIn) (*mcp.CallToolResult, RunAgentOut, error) {
	switch {
	case (in.Agent == "") == (in.Template == ""):
		return nil, RunAgentOut{}, errors.New("run_agent: give exactly one of agent or template")
	case strings.TrimSpace(in.Prompt) == "":
		return nil, RunAgentOut{}, errors.New("run_agent: the prompt is empty")
	}
	if err := s.delegate("run_agent", in.Agent); err != nil {
		return nil, RunAgentOut{}, err
	}
	cwd, err := s.sessionCwd(in.Cwd)
	if err != nil {
		return nil, RunAgentOut{}, fmt.Errorf("run_agent: %w", err)
	}
	s.turns.Add(1)
	defer s.turns.Done()
	log := &syncBuffer{}
	if _, err := s.runner.Load(log); err != nil {
		return nil, RunAgentOut{}, err
	}
	reply := &syncBuffer{}
	w := progressWriter{ctx, req, reply}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stop, cancel)()
	res, err := s.runner.Run(ctx, Turn{Agent: in.Agent, Template: in.Template, Cwd: cwd, Prompt: in.Prompt, Timeout: runAgentTimeout}, w, log)
	if err != nil && res.StopReason == "" {
		if l := strings.TrimSpace(log.String()); l != "" {
			err = fmt.Errorf("%w\n%s", err, l)
		}
		return nil, RunAgentOut{}, err
	}
	out := RunAgentOut{Agent: res.Agent, Reply: reply.String(), StopReason: res.StopReason, SessionID: res.SessionID, Log: log.String()}
	if err != nil {
		out.Error, out.ExitCode = err.Error(), res.ExitCode
	}
	return nil, out, nil
}

// sessionCwd is the client project of a run_agent turn: cwd, which must
// lie inside the workspace root (schema.DirInside: symlinks resolved, ".."
// refused) and outside its protected directories (schema.SessionCwd: no
// .git, .actant or cue.mod), so that an agent never places an agent's
// files elsewhere nor opens what the client protects
// (docs/run.md, "actctl mcp"); without one, the directory the server runs
// in when that is inside the root, else the root.
func (s *Server) sessionCwd(cwd string) (string, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err == nil {
			if d, err := schema.DirInside(s.root, wd); err == nil {
				return d, nil
			}
		}
		cwd = s.root
	}
	dir, err := schema.DirInside(s.root, cwd)
	if err != nil {
		return "", err
	}
	if err := schema.SessionCwd(s.root, dir); err != nil {
		return "", fmt.Errorf("cwd %s: %w", cwd, err)
	}
	return dir, nil
}

// delegate refuses a run or prompt of target (empty for a template's
// new agent) that would close a loop in the delegation chain — a turn
// waiting on itself, never to end — or make it longer than
// launch.MaxChain (README, "actctl mcp").
func (s *Server) delegate(tool, target string) error {
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

// PromptAgentOut is prompt_agent's result (docs/json.md).
type PromptAgentOut struct {
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
// says so. A turn that did not complete is a tool error, as run_agent's
// is; a completed one a result with its stop reason.
func (s *Server) promptAgent(ctx context.Context, req *mcp.CallToolRequest, in promptAgentIn) (*mcp.CallToolResult, PromptAgentOut, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, PromptAgentOut{}, errors.New("prompt_agent: the prompt is empty")
	}
	if err := s.delegate("prompt_agent", in.Agent); err != nil {
		return nil, PromptAgentOut{}, err
	}
	cfg, err := s.runner.Load(io.Discard)
	if err != nil {
		return nil, PromptAgentOut{}, err
	}
	if _, ok := cfg.Agents[in.Agent]; !ok {
		return nil, PromptAgentOut{}, agentprep.UnknownAgent(cfg, in.Agent)
	}
	s.turns.Add(1)
	defer s.turns.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stop, cancel)()
	reply := &syncBuffer{}
	w := progressWriter{ctx, req, reply}
	var res up.Outcome
	err = s.runner.Up(ctx, control.Request{Op: control.OpPrompt, Agent: in.Agent, Text: in.Prompt, Wait: true, Source: up.SourceMCP}, func(f control.Frame) {
		var e acpclient.Event
		if f.Kind == "event" && json.Unmarshal(f.Data, &e) == nil && e.Kind == acpclient.EventText {
			_, _ = w.Write([]byte(e.Text))
		}
	}, &res)
	if res.Agent == "" {
		return nil, PromptAgentOut{}, err
	}
	if res.StopReason == "" && (err != nil || res.Error != "") {
		return nil, PromptAgentOut{}, promptFailed(res, err)
	}
	return nil, PromptAgentOut{Agent: res.Agent, Task: res.Task, Reply: reply.String(), StopReason: res.StopReason, SessionID: res.SessionID, Error: res.Error}, nil
}

// promptFailed is prompt_agent's tool error for a turn that did not
// complete (no stop reason: the agent crashed, up stopped), as run_agent
// has one (docs/json.md): the reason, and where the task's log is.
func promptFailed(res up.Outcome, err error) error {
	reason := res.Error
	if reason == "" {
		reason = err.Error()
	}
	msg := fmt.Sprintf("prompt_agent: %s: task %d: %s", res.Agent, res.Task, reason)
	if res.Log != "" {
		msg += fmt.Sprintf(" (actctl logs %s --task %d)", res.Agent, res.Task)
	}
	return errors.New(msg)
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
// observer and its backend's callbacks).
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
