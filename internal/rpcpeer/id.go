package rpcpeer

import (
	"errors"

	"github.com/actctl/actctl/internal/lineframe"
)

// WithID is line, a JSON-RPC message, with the value of its top-level
// "id" (the last one, as encoding/json reads it) replaced by the raw
// token id; every other byte stays.
func WithID(line, id []byte) ([]byte, error) {
	s, err := idSpan(line)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(line)-(s.End-s.Start)+len(id))
	out = append(out, line[:s.Start]...)
	out = append(out, id...)
	return append(out, line[s.End:]...), nil
}

// idSpan is where the value of line's top-level "id" is.
func idSpan(line []byte) (lineframe.Span, error) {
	i := lineframe.SkipWS(line, 0)
	if i == len(line) || line[i] != '{' {
		return lineframe.Span{}, errors.New("not a JSON object")
	}
	s, found := lineframe.Span{}, false
	end, ok := lineframe.ScanObject(line, i, func(key []byte, vs, ve int) {
		if string(key) == "id" {
			s, found = lineframe.Span{Start: vs, End: ve}, true
		}
	})
	switch {
	case !ok || lineframe.SkipWS(line, end) != len(line):
		return s, errors.New("not a JSON object")
	case !found:
		return s, errors.New("no id")
	}
	return s, nil
}
