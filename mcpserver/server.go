package mcpserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
)

// Runner is what the tools need of the rest of actctl; cmd/actctl
// provides it. Every method reads the workspace afresh (the config may
// have changed since the server started).
type Runner interface {
	// Load loads the workspace's config; its warnings go to warn.
	Load(warn io.Writer) (*schema.Config, error)
	// Status is agent's status as `actctl status -o json` reports it.
	Status(cfg *schema.Config, agent string) (AgentStatusOut, error)
	// Run is one `actctl run` turn: its reply text streams to reply, its
	// tool calls, permission decisions and warnings to log. A turn that
	// does not end with exit code 0 returns an error, and the result
	// holds the code.
	Run(ctx context.Context, t Turn, reply, log io.Writer) (TurnResult, error)
	// Up sends one request to the workspace's `actctl up`, as `actctl
	// prompt` does: frames stream to onFrame, the result is decoded into
	// result. Without a running up the error says so.
	Up(ctx context.Context, req control.Request, onFrame func(control.Frame), result any) error
}

// Turn is what run_agent asks of a Runner.
type Turn struct {
	// Agent or Template: the declared agent to run, or the template of an
	// ephemeral agent.
	Agent, Template string
	// Cwd is the client's project, inside the workspace root.
	Cwd    string
	Prompt string
	// Timeout bounds the turn (exit code 124 when it runs out).
	Timeout time.Duration
}

// TurnResult is the outcome of a Runner's turn.
type TurnResult struct {
	// Agent is the agent that ran (for a template, its generated name).
	Agent      string
	StopReason string
	SessionID  string
	// ExitCode is the exit code actctl run would have (docs/run.md).
	ExitCode int
}

// Options configure a Server.
type Options struct {
	// Root is the workspace root.
	Root string
	// Caller is the calling agent (--as), empty for a person.
	Caller string
	// Chain is the delegation chain the server runs in
	// (launch.CallerChain): the agents whose turns wait, directly or not,
	// on this one's.
	Chain []string
	// Version is actctl's version, told to the client.
	Version string
	Runner  Runner
}

// Server answers the tools for one workspace and one caller.
type Server struct {
	root, caller string
	chain        []string
	runner       Runner
	// allowed are the tools the caller may use.
	allowed map[string]bool
	srv     *mcp.Server
	// stop is cancelled when Serve ends; turns are the calls that run a
	// turn still running.
	stop  context.Context
	turns sync.WaitGroup
}

// New is the server of the workspace cfg for the caller of o: cfg decides
// which tools the caller gets.
func New(cfg *schema.Config, o Options) *Server {
	s := &Server{root: o.Root, caller: o.Caller, chain: o.Chain, runner: o.Runner, allowed: toolsFor(cfg, o.Caller), stop: context.Background()}
	// The tools capability is declared even for a caller allowed none, so
	// that tools/list answers (an empty list) instead of failing.
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "actctl", Version: o.Version},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	s.register(s.srv)
	return s
}

// Serve answers on t until the client goes or ctx ends; then the running
// turns are cancelled and their backends stopped before it returns. An
// error is returned only when the session failed while ctx was live.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	s.stop = ctx
	err := s.srv.Run(ctx, t)
	stopped := ctx.Err() != nil
	cancel()
	s.turns.Wait()
	if err != nil && !stopped {
		return err
	}
	return nil
}

// JoinChain is the delegation chain of this process (launch.CallerChain,
// found up the process tree, not trusted to the backend's passing the
// variable on), set in the environment so that every backend the server
// starts extends it (launch.Resolve).
func JoinChain() ([]string, error) {
	chain := launch.CallerChain()
	if err := os.Setenv(launch.ChainVar, strings.Join(chain, ",")); err != nil {
		return nil, fmt.Errorf("set %s: %w", launch.ChainVar, err)
	}
	return chain, nil
}

// Stdio is the server's transport on in and out (the protocol: nothing
// else may write there). A message over the SDK's line limit is answered
// with a JSON-RPC error and said on stderr, and the server goes on serving
// (the SDK alone ended the session without a word).
func Stdio(in io.Reader, out, stderr io.Writer) mcp.Transport {
	limit := mcp.DefaultMaxLineLength
	w := lineframe.NewWriter(out)
	r := lineframe.NewReader(in, w, limit, func(n int64) {
		fmt.Fprintf(stderr, "actctl: mcp: refused a message of %d bytes (the limit is %d): answered with a JSON-RPC error\n", n, limit)
	})
	return &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}
}
