package acpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// errNotExtension refuses an extension call whose method does not start
// with "_" (the SDK's check).
func errNotExtension(method string) error {
	return fmt.Errorf("extension method name must start with '_' (got %q)", method)
}

// CallExtension sends extension request method ("_...").
func (k *conn) CallExtension(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if !strings.HasPrefix(method, "_") {
		return nil, errNotExtension(method)
	}
	return call[json.RawMessage](ctx, k, method, params)
}

// NotifyExtension sends extension notification method ("_...").
func (k *conn) NotifyExtension(ctx context.Context, method string, params any) error {
	if !strings.HasPrefix(method, "_") {
		return errNotExtension(method)
	}
	return k.notify(ctx, method, params)
}

// served are the client methods the agent may call, as the SDK's
// generated client-side handler serves them: params decoded and
// validated (else "invalid params"), the method called, its error made a
// JSON-RPC one. The SDK's unstable methods (elicitation, MCP over ACP)
// are not served, as guard does not implement them: "method not found".
var served = map[string]func(context.Context, guard, json.RawMessage) (any, *acp.RequestError){
	acp.ClientMethodFsReadTextFile:           typed(guard.ReadTextFile),
	acp.ClientMethodFsWriteTextFile:          typed(guard.WriteTextFile),
	acp.ClientMethodSessionRequestPermission: typed(guard.RequestPermission),
	acp.ClientMethodSessionUpdate: typed(func(g guard, ctx context.Context, n acp.SessionNotification) (any, error) {
		return nil, g.SessionUpdate(ctx, n)
	}),
	acp.ClientMethodTerminalCreate:      typed(guard.CreateTerminal),
	acp.ClientMethodTerminalOutput:      typed(guard.TerminalOutput),
	acp.ClientMethodTerminalRelease:     typed(guard.ReleaseTerminal),
	acp.ClientMethodTerminalWaitForExit: typed(guard.WaitForTerminalExit),
	acp.ClientMethodTerminalKill:        typed(guard.KillTerminal),
}

// typed serves a method of params P with f.
func typed[P any, PP interface {
	*P
	Validate() error
}, R any](f func(guard, context.Context, P) (R, error)) func(context.Context, guard, json.RawMessage) (any, *acp.RequestError) {
	return func(ctx context.Context, g guard, params json.RawMessage) (any, *acp.RequestError) {
		var p P
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, acp.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		if err := PP(&p).Validate(); err != nil {
			return nil, acp.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		r, err := f(g, ctx, p)
		if err != nil {
			return nil, requestError(err)
		}
		return r, nil
	}
}

// serveRequest serves the agent's request method: an extension method
// ("_...") by HandleExtensionMethod, a client method by served.
func serveRequest(ctx context.Context, g guard, method string, params json.RawMessage) (any, *acp.RequestError) {
	if strings.HasPrefix(method, "_") {
		r, err := g.HandleExtensionMethod(ctx, method, params)
		if err != nil {
			return nil, requestError(err)
		}
		return r, nil
	}
	f := served[method]
	if f == nil {
		return nil, acp.NewMethodNotFound(method)
	}
	return f(ctx, g, params)
}
