package proxy

import (
	"context"
	"encoding/json"
	"io"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// Refuse answers a client for which no backend can be started at all (the
// config does not load, the agent cannot be materialized): every request
// the client sends within the linger window gets a JSON-RPC error carrying
// msg, so the editor shows why instead of hanging. It returns once
// initialize was answered, at client EOF, or when the window ends.
func Refuse(ctx context.Context, stdin io.Reader, stdout io.Writer, msg string) {
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		lr := newLineReader(stdin, DefaultMaxMessageSize)
		for {
			line, err := lr.next()
			if len(line) > 0 {
				select {
				case lines <- append([]byte(nil), line...):
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	body, _ := json.Marshal(&acp.RequestError{Code: -32603, Message: msg})
	timer := time.NewTimer(startLinger)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		case line, ok := <-lines:
			if !ok {
				return
			}
			env := parseEnvelope(line)
			if env.kind != kindRequest {
				continue
			}
			out := append([]byte(`{"jsonrpc":"2.0","id":`), env.id...)
			out = append(out, `,"error":`...)
			out = append(out, body...)
			out = append(out, "}\n"...)
			if _, err := stdout.Write(out); err != nil {
				return
			}
			if env.methodIs(acp.AgentMethodInitialize) {
				return
			}
		}
	}
}
