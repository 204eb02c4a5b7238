package rpcpeer

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// TestAnswers: actctl's own answers have one byte layout, the id's bytes
// kept as they are (null when there is none).
func TestAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"error", string(AppendError(nil, []byte(`"a"`), &acp.RequestError{Code: CodeInternal, Message: "gone"})),
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"gone"}}`},
		{"error without id", string(AppendError(nil, nil, &acp.RequestError{Code: CodeParseError, Message: "Parse error"})),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"id bytes kept", string(AppendError([]byte("x"), []byte(`1.0`), &acp.RequestError{Code: CodeMethodNotFound, Message: "m"})),
			`x{"jsonrpc":"2.0","id":1.0,"error":{"code":-32601,"message":"m"}}`},
		{"data", string(AppendError(nil, []byte(`7`), InvalidParams("session/new", "cwd is required"))),
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: cwd is required","data":{"method":"session/new","reason":"cwd is required"}}}`},
		{"result", string(AppendResult(nil, []byte(`3`), map[string]int{"n": 1})), `{"jsonrpc":"2.0","id":3,"result":{"n":1}}`},
		{"empty result", string(AppendResult(nil, []byte(`3`), nil)), `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{"result that does not encode", string(AppendResult(nil, []byte(`3`), func() {})),
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error","data":{"error":"json: unsupported type: func()"}}}`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}
