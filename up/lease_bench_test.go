package up

import (
	"context"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// BenchmarkLeaseSessionNew: initialize and session/new of a lease client
// on a warm service, in process over a pipe (no actctl start, no backend
// start): the warm path of `proxy --lease` (docs/benchmarks.md). The cold
// path is cmd/actctl's BenchmarkDirectToFirstPrompt (backend start,
// initialize, session/new).
func BenchmarkLeaseSessionNew(b *testing.B) {
	h := newHarness(b, nil)
	h.m.Sync([]Spec{service(b, "api")})
	h.wait("process:start", "api")
	cwd := b.TempDir()
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		c := h.lease("api", "yes")
		if _, err := c.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		c.close()
	}
	reportP50(b, "ms-to-session", ds)
}
