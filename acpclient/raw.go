package acpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	acp "github.com/coder/acp-go-sdk"
)

// A session lease relays an editor's messages to the backend and back as
// the bytes they are (docs/runtime.md, "Session leases"): what the SDK's
// typed structs do not know (_meta, content annotations, error codes and
// data) must survive. The Client lends the lease its backend's stdin and
// stdout for that: a Router sees every line the backend writes before the
// SDK, and takes the ones that are the lease's; WriteRaw writes the
// lease's lines to the backend between the SDK's own.

// Router takes lines the backend writes before the SDK handles them.
type Router interface {
	// Route is called with every line the backend writes (without its
	// newline), in order, on the goroutine that reads the backend: it
	// must not wait for the backend. It may keep line. It returns whether
	// the SDK handles the line too.
	Route(line []byte) (keep bool)
}

// Router returns the Client's Router, installing mk's on the first call.
func (c *Client) Router(mk func() Router) Router {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.router == nil {
		c.router = mk()
	}
	return c.router
}

// route is the installed Router's answer for line (true without one).
func (c *Client) route(line []byte) bool {
	c.mu.Lock()
	r := c.router
	c.mu.Unlock()
	if r == nil || len(bytes.TrimSpace(line)) == 0 {
		return true
	}
	// The reader's buffer is reused for the next line; the Router may
	// keep what it is given.
	return r.Route(bytes.Clone(line))
}

// WriteRaw writes one JSON-RPC message (a line; the newline is added if
// missing) to the backend, between the SDK's own writes (outbound holds
// its lock for each whole message).
func (c *Client) WriteRaw(line []byte) error {
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line[:len(line):len(line)], '\n')
	}
	if err := c.out.writeRaw(line); err != nil {
		return fmt.Errorf("write to backend %q: %w", c.opts.Launch.Command, err)
	}
	return nil
}

// Adopt registers a session the agent opened in answer to a session/new
// that did not come from the Client (a lease relayed it): the agent's
// requests naming id are served as a NewSession's would be. o.Cwd must be
// absolute.
func (c *Client) Adopt(id string, o SessionOptions) (*Session, error) {
	if o.Rule == "" {
		o.Rule = c.opts.Rule
	}
	s, err := c.newSession(o, false)
	if err != nil {
		return nil, err
	}
	s.id = id
	s.filter = nil // a lease relays its client's lines as they are
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions[id] != nil {
		return nil, errors.New("the agent answered session/new with the id of an open session: " + id)
	}
	c.sessions[id] = s
	return s, nil
}

// ApplyMode puts an adopted session in Options.Mode as NewSession does
// (see applyMode), given the modes of the agent's answer, and returns the
// session's mode then.
func (s *Session) ApplyMode(ctx context.Context, modes *acp.SessionModeState) (string, error) {
	err := s.c.applyMode(ctx, s, modes)
	return s.Mode(), err
}
