package acpclient

import (
	"context"
	"errors"
	"io"
	"sort"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/model"
)

// Connect is Start on a backend another process holds: conn is an ACP
// stream to it (a session lease on `actctl up`'s warm process,
// docs/runtime.md "Session leases"), not a process of the client's own.
// It sends initialize advertising file reads only (the holder serves
// writes and terminals, confined, as the agent's preset allows); no
// session is open until Open. Options.Launch gives the agent's workspace
// (a root of the sessions' files) and its name in errors (Command).
// Closing the client ends the stream; the backend goes on.
func Connect(ctx context.Context, conn io.ReadWriteCloser, o Options) (*Client, error) {
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	c := &Client{opts: o, obs: o.Observer, exited: make(chan struct{}), sessions: map[string]*Session{}, remote: conn}
	if c.obs == nil {
		c.obs = nopObserver{}
	}
	readCtx, stopRead := context.WithCancel(context.Background())
	c.readCtx = readCtx
	c.out = &outbound{w: conn, fn: c.wire.sent, pending: &c.pending}
	c.conn = newConn(c, c.out)
	context.AfterFunc(c.conn.ctx, func() {
		close(c.exited)
		stopRead() // after: AfterDone runs once Done is closed
	})
	go c.conn.serve(newInbound(c, conn))
	stop := context.AfterFunc(ctx, c.killAll)
	info, err := call[acp.InitializeResponse](ctx, c.conn, acp.AgentMethodInitialize, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true}},
		ClientInfo:         &acp.Implementation{Name: "actctl", Version: "dev"},
	})
	stop()
	if err != nil {
		err = c.failure(ctx, ErrStart, "initialize", err)
		c.Close()
		return nil, err
	}
	c.info = info
	return c, nil
}

// Open opens the primary session of a Connect client: session/new with
// the client's project cwd (or the workspace, as Start), or with resume
// set session/resume of that session (an idle leased one of the
// client's; cwd must be its cwd).
func (c *Client) Open(ctx context.Context, cwd, resume string) error {
	if c.primary != nil {
		return errors.New("the primary session is open already")
	}
	if c.opts.Launch.SessionCwd == model.CwdWorkspace && resume == "" {
		cwd = c.opts.Launch.Workspace
	}
	s, err := c.newSession(SessionOptions{Cwd: cwd, Rule: c.opts.Rule, Ask: c.opts.Ask, Observer: c.obs}, true)
	if err != nil {
		return err
	}
	if resume == "" {
		if err := c.open(ctx, s, c.opts.MCPServers); err != nil {
			return err
		}
		c.primary = s
		return nil
	}
	if _, err := call[acp.ResumeSessionResponse](ctx, c.conn, acp.AgentMethodSessionResume, acp.ResumeSessionRequest{SessionId: acp.SessionId(resume), Cwd: cwd}); err != nil {
		return c.failure(ctx, ErrStart, "session/resume", err)
	}
	s.id = resume
	c.mu.Lock()
	c.sessions[s.id] = s
	c.mu.Unlock()
	c.primary = s
	return nil
}

// ListSessions lists the sessions the backend offers the client
// (session/list: on a lease, the client's own), by id.
func (c *Client) ListSessions(ctx context.Context) ([]acp.SessionInfo, error) {
	r, err := call[acp.ListSessionsResponse](ctx, c.conn, acp.AgentMethodSessionList, acp.ListSessionsRequest{})
	if err != nil {
		return nil, c.failure(ctx, ErrStart, "session/list", err)
	}
	sort.Slice(r.Sessions, func(i, j int) bool { return r.Sessions[i].SessionId < r.Sessions[j].SessionId })
	return r.Sessions, nil
}

// closeRemote ends a Connect client: its writing side is closed first
// (the holder then lets the sessions go, idle) and the holder's end of the
// stream awaited for the grace period, so that a client that comes back
// at once finds its session idle; then the stream is closed.
func (c *Client) closeRemote() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	if cw, ok := c.remote.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
		t := time.NewTimer(c.opts.Grace)
		select {
		case <-c.exited:
		case <-t.C:
		}
		t.Stop()
	}
	_ = c.remote.Close()
	<-c.exited
}
