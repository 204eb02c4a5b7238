package main

import (
	"context"
	"io"
	"os"

	"github.com/actctl/actctl/up"
)

// proxyLease is `proxy --lease` (docs/runtime.md, "Session leases"): the
// client's ACP stream is relayed, byte for byte, to the running actctl
// up, which serves it with sessions on the agent's warm process; the
// proxy presents the client's identity (up.LeaseClient). Without
// up, or with the agent not running, the client's initialize is answered
// with an error saying so.
func proxyLease(ctx context.Context, g *globals, agent string) error {
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
	go func() { _, _ = io.Copy(rw, os.Stdin); done <- struct{}{} }()
	go func() { _, _ = io.Copy(os.Stdout, rw); done <- struct{}{} }()
	select {
	case <-done: // the client or up went away
	case <-ctx.Done():
	}
	return nil
}
