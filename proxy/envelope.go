package proxy

import "github.com/actctl/actctl/internal/lineframe"

// The relay never decodes a whole message: it forwards the original bytes
// and reads only the envelope, as internal/lineframe's scanner locates it
// (Parse). This file gives the relay its names for that scanner.

// msgKind classifies a line by its JSON-RPC envelope (lineframe.Kind).
type msgKind = lineframe.Kind

const (
	kindNone         = lineframe.KindNone
	kindRequest      = lineframe.KindRequest
	kindNotification = lineframe.KindNotification
	kindResponse     = lineframe.KindResponse
	kindBatch        = lineframe.KindBatch
)

// span is a half-open byte range [start, end) of a line.
type span struct{ start, end int }

// envelope locates the JSON-RPC members of one message. Byte slices alias
// the scanned line.
type envelope struct {
	kind    msgKind
	id      []byte // raw id token, nil when absent
	method  []byte // raw method token including its quotes
	params  span   // value range of "params"; start == end when absent
	result  span   // value range of "result" (of "error" in an error response); start == end when absent
	isError bool   // a response with an "error" member
}

// parseEnvelope scans one line (see lineframe.Parse).
func parseEnvelope(b []byte) envelope {
	e := lineframe.Parse(b)
	res := e.Result
	if e.IsError {
		res = e.Error
	}
	return envelope{kind: e.Kind, id: e.ID, method: e.Method, params: span{e.Params.Start, e.Params.End}, result: span{res.Start, res.End}, isError: e.IsError}
}

// methodIs reports whether the envelope's method equals name.
func (e *envelope) methodIs(name string) bool { return lineframe.StringIs(e.method, name) }

// appendIDKey: see lineframe.AppendIDKey.
func appendIDKey(dst, id []byte) (key []byte, ok bool) { return lineframe.AppendIDKey(dst, id) }

func skipWS(b []byte, i int) int { return lineframe.SkipWS(b, i) }

// scanObject: see lineframe.ScanObject (depth is always 0 here).
func scanObject(b []byte, i, _ int, member func(key []byte, vs, ve int)) (int, bool) {
	return lineframe.ScanObject(b, i, member)
}

// scanValue: see lineframe.ScanValue (depth is always 0 here).
func scanValue(b []byte, i, _ int) (int, bool) { return lineframe.ScanValue(b, i) }
