package acpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// Extension methods (names starting with "_", docs/runtime.md "Session
// leases") are not actctl's to interpret: a session lease passes them
// between the editor and the agent. The SDK hands a handler requests and
// notifications alike; ExtensionNotes tells them apart from the raw lines.

// ExtensionNotes counts the extension notifications read on a stream and
// not yet handled, by method: the SDK handles notifications in the order
// they were read, so the next handler call of that method is one of them.
type ExtensionNotes struct {
	mu sync.Mutex
	n  map[string]int
}

// Seen records line, one JSON-RPC message read from the stream.
func (e *ExtensionNotes) Seen(line []byte) {
	if !bytes.Contains(line, []byte(`"_`)) {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || !strings.HasPrefix(m.Method, "_") || m.ID != nil {
		return
	}
	e.mu.Lock()
	if e.n == nil {
		e.n = map[string]int{}
	}
	e.n[m.Method]++
	e.mu.Unlock()
}

// Take reports whether the handler call of method at hand is a
// notification (and counts it handled).
func (e *ExtensionNotes) Take(method string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.n[method] > 0 {
		e.n[method]--
		return true
	}
	return false
}

// Extension is what serves the agent's extension methods of one session:
// a lease's editor. notify says whether the message is a notification.
type Extension func(ctx context.Context, method string, params json.RawMessage, notify bool) (json.RawMessage, error)

// HandleExtensionMethod passes an extension method the agent sent to the
// session its params name, if that session has an Extension; anything
// else is "method not found".
func (c *Client) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	notify := c.notes.Take(method)
	var m struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(params, &m)
	c.mu.Lock()
	s := c.sessions[m.SessionID]
	c.mu.Unlock()
	if s == nil || s.ext == nil {
		return nil, acp.NewMethodNotFound(method)
	}
	return s.ext(ctx, method, params, notify)
}

// CallExtension sends an extension request to the agent.
func (c *Client) CallExtension(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.conn.CallExtension(ctx, method, params)
}

// NotifyExtension sends an extension notification to the agent.
func (c *Client) NotifyExtension(ctx context.Context, method string, params json.RawMessage) error {
	return c.conn.NotifyExtension(ctx, method, params)
}
