// Package acpclient is actctl's ACP client: it starts an agent's backend
// (through package launch, so the process hygiene is the proxy's), speaks
// the client side of the Agent Client Protocol to it over stdio (the
// message types of github.com/coder/acp-go-sdk, a JSON-RPC connection of
// its own: conn.go), and serves the methods an agent may call on
// its client: fs/read_text_file and fs/write_text_file looked up beneath
// the session's roots and never writing actctl's own records (fs.go,
// beneath_*.go), terminal/* as real processes in their own groups (the
// writes and terminals only as the agent's preset allows: guard.go), and
// session/request_permission answered by a permission policy (policy.go).
// It reads the agent's messages itself (stream.go): each line
// goes to the observer of the session it names, on that one read
// goroutine, so an observer must not block: a slow one slows this
// backend's every session, and the agent's requests in flight are
// bounded. up's consumers therefore queue what they are given (package
// control's Stream, up's lease queue).
//
// Everything in actctl that *uses* an agent shares this client: `actctl
// run` and `chat`, the MCP server's run_agent, and `up` (its supervised
// processes, service prompts and session leases). Its API knows nothing
// of the command line: callers pass Options, receive each session's
// messages and Events through an Observer, and get a Result per turn
// (stop reason, session id, duration, permission counts). One Client is
// one backend process; Start opens its primary session and NewSession
// more on the same process, each with its own cwd, rule, observer and
// tool calls (the agent's requests are routed by sessionId). For a
// session lease (raw.go) a Router sees the backend's lines before the
// client handles them, WriteRaw writes a lease client's lines to the backend, and Adopt
// registers a session a relayed session/new opened; a Delegate serves a
// session's client methods in actctl's place (delegate.go). A Client also
// satisfies the supervisor's process interface (Pid, Done, Err,
// Terminate, Kill). See docs/run.md and docs/runtime.md.
package acpclient
