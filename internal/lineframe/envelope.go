package lineframe

import (
	"bytes"
	"encoding/json"
	"math/big"
	"unicode/utf8"
)

// A JSON-RPC line is classified once, by Parse, without decoding it: a
// small JSON scanner checks the line's syntax and reports where the
// envelope members (id, method, params, result, error) are, as byte
// offsets into the line. Decoding into typed structs and encoding again
// would drop unknown fields and reorder keys, and decoding the same line
// once per reader (the client's observers, its router, its dispatcher)
// cost an allocation-heavy json.Unmarshal each; every reader of a line is
// given its Envelope instead (docs/design.md, "The runtime: start here").

// Kind classifies a line by its JSON-RPC envelope.
type Kind uint8

const (
	// KindNone: not a JSON-RPC message (blank, not JSON, or a JSON value
	// without a method or a response shape).
	KindNone Kind = iota
	KindRequest
	KindNotification
	KindResponse
	// KindBatch: a JSON array. ACP does not use JSON-RPC batches, but they
	// are valid JSON-RPC, so they are relayed unexamined rather than dropped.
	KindBatch
)

// Span is a half-open byte range [Start, End) of a line.
type Span struct{ Start, End int }

// Empty reports whether the span is empty (the member is absent).
func (s Span) Empty() bool { return s.Start == s.End }

// Envelope locates the JSON-RPC members of one message. Byte slices alias
// the scanned line.
type Envelope struct {
	Kind Kind
	// Valid: the line is one JSON value (as json.Valid says).
	Valid  bool
	ID     []byte // raw id token, nil when absent ("null" when null)
	Method []byte // raw method token including its quotes; nil when absent or not a string
	Params Span   // value range of "params"; empty when absent
	Result Span   // value range of "result"; empty when absent
	Error  Span   // value range of "error"; empty when absent
	// IsError: a response with an "error" member.
	IsError bool
}

// maxDepth bounds nesting like encoding/json does, so hostile input cannot
// make the scanner recurse without limit.
const maxDepth = 10000

// Parse scans one line (trailing "\n" or "\r\n" allowed). For duplicated
// members the last one wins, as in encoding/json; keys match exactly (as
// JSON-RPC spells them).
func Parse(b []byte) Envelope {
	var env Envelope
	i := SkipWS(b, 0)
	if i == len(b) {
		return env
	}
	switch b[i] {
	case '[':
		end, ok := scanValue(b, i, 0)
		if ok && SkipWS(b, end) == len(b) {
			env.Kind, env.Valid = KindBatch, true
		}
		return env
	case '{':
	default:
		end, ok := scanValue(b, i, 0)
		env.Valid = ok && SkipWS(b, end) == len(b)
		return env
	}
	var hasID, hasMethod, hasResult, hasError bool
	end, ok := scanObject(b, i, 0, func(key []byte, vs, ve int) {
		switch string(key) {
		case "id":
			env.ID, hasID = b[vs:ve], true
		case "method":
			if b[vs] == '"' {
				env.Method, hasMethod = b[vs:ve], true
			} else {
				env.Method, hasMethod = nil, false
			}
		case "params":
			env.Params = Span{vs, ve}
		case "result":
			env.Result, hasResult = Span{vs, ve}, true
		case "error":
			env.Error, hasError = Span{vs, ve}, true
		}
	})
	if !ok || SkipWS(b, end) != len(b) {
		return Envelope{}
	}
	env.Valid = true
	switch {
	case hasMethod && hasID:
		env.Kind = KindRequest
	case hasMethod:
		env.Kind = KindNotification
	case hasID && (hasResult || hasError):
		env.Kind = KindResponse
		env.IsError = hasError
	}
	return env
}

// MethodIs reports whether the envelope's method equals name.
func (e *Envelope) MethodIs(name string) bool { return StringIs(e.Method, name) }

// StringIs reports whether the JSON string token tok (quotes included)
// spells s.
func StringIs(tok []byte, s string) bool {
	if len(tok) < 2 {
		return false
	}
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1:len(tok)-1]) == s
	}
	var d string
	return json.Unmarshal(tok, &d) == nil && d == s
}

// Unquote is the text of the JSON string token tok, as encoding/json
// decodes it: its inside when it has no escapes and is valid UTF-8
// (aliasing tok, no allocation), else decoded; ok is false when tok is
// not a string.
func Unquote(tok []byte) ([]byte, bool) {
	if len(tok) < 2 || tok[0] != '"' {
		return nil, false
	}
	if bytes.IndexByte(tok, '\\') < 0 && utf8.Valid(tok) {
		return tok[1 : len(tok)-1], true
	}
	var d string
	if json.Unmarshal(tok, &d) != nil {
		return nil, false
	}
	return []byte(d), true
}

// Member is the value of the member key of the object at obj in b (a
// Span of a valid line, such as Envelope.Params): its raw token, nil when
// obj is not an object or has no such member. The last one wins.
func Member(b []byte, obj Span, key string) []byte {
	if obj.Empty() || b[obj.Start] != '{' {
		return nil
	}
	var v []byte
	scanObject(b[:obj.End], obj.Start, 0, func(k []byte, vs, ve int) {
		if string(k) == key {
			v = b[vs:ve]
		}
	})
	return v
}

// ScanObject scans the object starting at b[i] == '{' and calls member
// for every member with the decoded key and the value's byte range. It
// returns the offset just past the closing brace.
func ScanObject(b []byte, i int, member func(key []byte, vs, ve int)) (int, bool) {
	return scanObject(b, i, 0, member)
}

// AppendIDKey appends to dst the key under which a request id is tracked
// (dst lets the hot path build keys on the stack). Ids are compared by their
// raw bytes, except that escapes in string ids are resolved and
// non-canonical numbers (1.0, 1e0, -0) are normalized, because a peer that
// decodes and re-encodes an id may answer with either spelling. String and
// number ids never collide ("s" and "n" prefixes). ok is false for a null
// or missing id, which cannot be answered.
func AppendIDKey(dst, id []byte) (key []byte, ok bool) {
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

// SkipWS returns the offset of the first byte at or after i that is not JSON
// white space.
func SkipWS(b []byte, i int) int {
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
	i = SkipWS(b, i+1)
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
		i = SkipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		vs := SkipWS(b, i+1)
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
		i = SkipWS(b, ve)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
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
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		ve, ok := scanValue(b, i, depth+1)
		if !ok {
			return 0, false
		}
		i = SkipWS(b, ve)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
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
