package proxy

import (
	"bytes"
	"encoding/json"
	"math/big"
)

// The relay never decodes a whole message. Decoding into typed ACP structs
// and encoding again would drop unknown fields and variants and reorder keys;
// decoding into generic maps would still reformat numbers and escapes. So this
// file holds a small JSON scanner that checks a line's syntax and reports
// where the envelope members (id, method, params, result, error) are, as byte
// offsets into the line. Everything the relay forwards is the original bytes.

// msgKind classifies a line by its JSON-RPC envelope.
type msgKind uint8

const (
	// kindNone: not a JSON-RPC message (blank, not JSON, or a JSON value
	// without a method or a response shape).
	kindNone msgKind = iota
	kindRequest
	kindNotification
	kindResponse
	// kindBatch: a JSON array. ACP does not use JSON-RPC batches, but they
	// are valid JSON-RPC, so they are relayed unexamined rather than dropped.
	kindBatch
)

// span is a half-open byte range [start, end) of a line.
type span struct{ start, end int }

// envelope locates the JSON-RPC members of one message. Byte slices alias
// the scanned line.
type envelope struct {
	kind   msgKind
	id     []byte // raw id token, nil when absent
	method []byte // raw method token including its quotes
	params span   // value range of "params"; start == end when absent
	// isError: a response with an "error" member.
	isError bool
}

// maxDepth bounds nesting like encoding/json does, so hostile input cannot
// make the scanner recurse without limit.
const maxDepth = 10000

// parseEnvelope scans one line (trailing "\n" or "\r\n" allowed). For
// duplicated members the last one wins, as in encoding/json.
func parseEnvelope(b []byte) envelope {
	var env envelope
	i := skipWS(b, 0)
	if i == len(b) {
		return env
	}
	switch b[i] {
	case '[':
		end, ok := scanValue(b, i, 0)
		if ok && skipWS(b, end) == len(b) {
			env.kind = kindBatch
		}
		return env
	case '{':
	default:
		return env
	}
	var hasID, hasMethod, hasResult, hasError bool
	end, ok := scanObject(b, i, 0, func(key []byte, vs, ve int) {
		switch string(key) {
		case "id":
			env.id, hasID = b[vs:ve], true
		case "method":
			if b[vs] == '"' {
				env.method, hasMethod = b[vs:ve], true
			} else {
				env.method, hasMethod = nil, false
			}
		case "params":
			env.params = span{vs, ve}
		case "result":
			hasResult = true
		case "error":
			hasError = true
		}
	})
	if !ok || skipWS(b, end) != len(b) {
		return envelope{}
	}
	switch {
	case hasMethod && hasID:
		env.kind = kindRequest
	case hasMethod:
		env.kind = kindNotification
	case hasID && (hasResult || hasError):
		env.kind = kindResponse
		env.isError = hasError
	}
	return env
}

// methodIs reports whether the envelope's method equals name.
func (e *envelope) methodIs(name string) bool {
	m := e.method
	if len(m) < 2 {
		return false
	}
	if bytes.IndexByte(m, '\\') < 0 {
		return string(m[1:len(m)-1]) == name
	}
	var s string
	return json.Unmarshal(m, &s) == nil && s == name
}

// appendIDKey appends to dst the key under which a request id is tracked
// (dst lets the hot path build keys on the stack). Ids are compared by their
// raw bytes, except that escapes in string ids are resolved and
// non-canonical numbers (1.0, 1e0, -0) are normalized, because a peer that
// decodes and re-encodes an id may answer with either spelling. String and
// number ids never collide ("s" and "n" prefixes). ok is false for a null
// or missing id, which cannot be answered.
func appendIDKey(dst, id []byte) (key []byte, ok bool) {
	if len(id) == 0 || id[0] == 'n' {
		return dst, false
	}
	if id[0] == '"' {
		if bytes.IndexByte(id, '\\') < 0 {
			return append(append(dst, 's'), id[1:len(id)-1]...), true
		}
		var s string
		if json.Unmarshal(id, &s) != nil {
			return dst, false
		}
		return append(append(dst, 's'), s...), true
	}
	if id[0] != '-' && (id[0] < '0' || id[0] > '9') {
		// Objects, arrays and booleans are not valid ids; track them by
		// their bytes anyway so that they are answered after a crash.
		return append(append(dst, 'x'), id...), true
	}
	if !bytes.ContainsAny(id, ".eE") && !(len(id) >= 2 && id[0] == '-' && id[1] == '0') {
		return append(append(dst, 'n'), id...), true
	}
	f, _, err := big.ParseFloat(string(id), 10, 512, big.ToNearestEven)
	if err != nil {
		return append(append(dst, 'n'), id...), true
	}
	if f.IsInt() {
		n, _ := f.Int(nil)
		return append(append(dst, 'n'), n.String()...), true
	}
	return append(append(dst, 'n'), f.Text('g', -1)...), true
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanObject scans the object starting at b[i] == '{' and calls member for
// every member with the decoded key and the value's byte range. It returns
// the offset just past the closing brace.
func scanObject(b []byte, i, depth int, member func(key []byte, vs, ve int)) (int, bool) {
	if depth > maxDepth {
		return 0, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		ks := i
		ke, esc, ok := scanString(b, i)
		if !ok {
			return 0, false
		}
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		vs := skipWS(b, i+1)
		ve, ok := scanValue(b, vs, depth+1)
		if !ok {
			return 0, false
		}
		if member != nil {
			if esc {
				// Rare: a key spelled with escapes ("\u0069d" is "id").
				var s string
				if json.Unmarshal(b[ks:ke], &s) == nil {
					member([]byte(s), vs, ve)
				}
			} else {
				member(b[ks+1:ke-1], vs, ve)
			}
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

func scanValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := scanString(b, i)
		return end, ok
	case c == '{':
		return scanObject(b, i, depth, nil)
	case c == '[':
		return scanArray(b, i, depth)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(b, i)
	}
	return 0, false
}

func scanArray(b []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return 0, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		ve, ok := scanValue(b, i, depth+1)
		if !ok {
			return 0, false
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return 0, false
}

func scanNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return 0, false
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == s {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == s {
			return 0, false
		}
	}
	return i, true
}

// plain marks bytes that need no attention inside a string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString scans the string token starting at b[i] == '"' and returns the
// offset past its closing quote and whether it contains escapes.
func scanString(b []byte, i int) (end int, esc bool, ok bool) {
	j := i + 1
	for {
		for j < len(b) && plain[b[j]] {
			j++
		}
		if j >= len(b) {
			return 0, false, false
		}
		switch b[j] {
		case '"':
			return j + 1, esc, true
		case '\\':
			esc = true
			if j+1 >= len(b) {
				return 0, false, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) {
					return 0, false, false
				}
				for _, h := range b[j+2 : j+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return 0, false, false
					}
				}
				j += 6
			default:
				return 0, false, false
			}
		default: // control character
			return 0, false, false
		}
	}
}
