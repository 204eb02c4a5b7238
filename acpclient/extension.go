package acpclient

import (
	"context"
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// Extension methods (names starting with "_", docs/runtime.md "Session
// leases") are not actctl's to interpret: a session lease passes them
// between the editor and the agent. Extension notifications are handled
// where they are read (stream.go); the SDK hands HandleExtensionMethod
// the requests only.

// Extension is what serves the agent's extension methods of one session:
// a lease's editor. notify says whether the message is a notification.
type Extension func(ctx context.Context, method string, params json.RawMessage, notify bool) (json.RawMessage, error)

// HandleExtensionMethod passes an extension method the agent sent to the
// session its params name, if that session has an Extension; anything
// else is "method not found".
func (c *Client) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
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
	return s.ext(ctx, method, params, false)
}

// CallExtension sends an extension request to the agent.
func (c *Client) CallExtension(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.conn.CallExtension(ctx, method, params)
}

// NotifyExtension sends an extension notification to the agent.
func (c *Client) NotifyExtension(ctx context.Context, method string, params json.RawMessage) error {
	return c.conn.NotifyExtension(ctx, method, params)
}
