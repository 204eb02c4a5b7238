// Package acpclient is actctl's ACP client: it starts an agent's backend
// (through package launch, so the process hygiene is the proxy's), speaks
// the client side of the Agent Client Protocol to it over stdio with
// github.com/coder/acp-go-sdk, and serves the methods an agent may call on
// its client: fs/read_text_file and fs/write_text_file looked up beneath
// the session's roots and never writing actctl's own records (fs.go,
// beneath_*.go), terminal/* as real processes in their own groups (the
// writes and terminals only as the agent's preset allows: guard.go), and
// session/request_permission answered by a permission policy. It reads
// the agent's messages itself before the SDK, so that a slow observer
// slows the agent down and the agent's requests in flight are bounded
// (tee.go).
//
// It exists so that everything in actctl that *uses* an agent — `actctl
// run` and `chat` today, later `up`, `prompt` and the MCP server — shares
// one client. Its API knows nothing of the command line: callers pass
// Options, receive a stream of Events through an Observer, and get a
// Result per turn (stop reason, session id, duration, permission counts).
// One Client is one backend process; Start opens its primary session and
// NewSession more on the same process, each with its own cwd, rule,
// observer and tool calls (the agent's requests are routed by sessionId).
// A Client also satisfies the supervisor's process interface (Pid, Done,
// Err, Terminate, Kill). See docs/run.md.
package acpclient
