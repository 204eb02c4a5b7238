package rpcpeer

import (
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// The JSON-RPC 2.0 error codes actctl answers with.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
)

// AppendError appends to dst the answer to the request of raw id token id
// (nil: null) carrying e: {"jsonrpc":"2.0","id":ID,"error":E}, without a
// newline. The id's bytes are kept as they are.
func AppendError(dst, id []byte, e *acp.RequestError) []byte {
	body, err := json.Marshal(e)
	if err != nil {
		body, _ = json.Marshal(acp.NewInternalError(map[string]any{"error": err.Error()}))
	}
	return appendAnswer(dst, id, `,"error":`, body)
}

// AppendResult appends to dst the answer to id carrying result (nil: an
// empty object), without a newline; a result that does not encode is
// answered with an internal error.
func AppendResult(dst, id []byte, result any) []byte {
	if result == nil {
		result = struct{}{}
	}
	body, err := json.Marshal(result)
	if err != nil {
		return AppendError(dst, id, acp.NewInternalError(map[string]any{"error": err.Error()}))
	}
	return appendAnswer(dst, id, `,"result":`, body)
}

func appendAnswer(dst, id []byte, member string, body []byte) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, member...)
	dst = append(dst, body...)
	return append(dst, '}')
}

// InvalidParams is the error answering a request whose params break a
// rule, with the reason in its message and data (and the method, when
// given).
func InvalidParams(method, reason string) *acp.RequestError {
	data := map[string]any{"reason": reason}
	if method != "" {
		data["method"] = method
	}
	e := acp.NewInvalidParams(data)
	e.Message = "Invalid params: " + reason
	return e
}
