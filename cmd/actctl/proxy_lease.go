package main

import (
	"context"
	"io"
	"os"

	"github.com/actctl/actctl/internal/rpcpeer"

	"github.com/actctl/actctl/up"
)

// proxyLease is `proxy --lease` (docs/runtime.md, "Session leases"): the
// client's ACP stream is relayed, byte for byte, to the running actctl
// up, which serves it with sessions on the agent's warm process; the
// proxy presents the client's identity (up.LeaseClient). Without
// up, or with the agent not running, the client's initialize is answered
// with an error saying so. trace, if set, traces each line both ways
// (--debug-acp): what the client sends and what it gets, after up's
// plugins.
func proxyLease(ctx context.Context, g *globals, agent string, trace *rpcpeer.Trace) error {
	cl, err := dialUp(ctx, g)
	if err != nil {
		return refuse(ctx, g, err)
	}
	rw, err := up.OpenLease(cl, agent, up.LeaseClient())
	if err != nil {
		return refuse(ctx, g, err)
	}
	defer rw.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(trace.Writer("client"+rpcpeer.ToAgent, rw), os.Stdin); done <- struct{}{} }()
	go func() { _, _ = io.Copy(trace.Writer("agent"+rpcpeer.ToClient, os.Stdout), rw); done <- struct{}{} }()
	select {
	case <-done: // the client or up went away
	case <-ctx.Done():
	}
	return nil
}
