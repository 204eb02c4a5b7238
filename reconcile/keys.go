package reconcile

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/actctl/actctl/schema"
)

// keyCodec adapts one structured-file library (internal/jsonkeys,
// internal/tomlkeys) to the planner: values are canonical JSON both ways,
// receipts are opaque JSON stored in the state.
type keyCodec interface {
	get(content []byte, path []string) (json.RawMessage, bool, error)
	set(content []byte, path []string, v json.RawMessage) ([]byte, json.RawMessage, error)
	del(content []byte, path []string, receipt json.RawMessage) ([]byte, error)
	// empty reports whether a file actctl created holds nothing any more
	// (so it can be deleted).
	empty(content []byte) bool
}

func codecFor(format string) (keyCodec, error) {
	switch format {
	case schema.FormatJSON:
		return jsonCodec{}, nil
	case schema.FormatTOML:
		return tomlCodec{}, nil
	}
	return nil, fmt.Errorf("unknown structured format %q", format)
}

type jsonCodec struct{}

func (jsonCodec) get(c []byte, p []string) (json.RawMessage, bool, error) { return jsonkeys.Get(c, p) }

func (jsonCodec) set(c []byte, p []string, v json.RawMessage) ([]byte, json.RawMessage, error) {
	out, r, err := jsonkeys.Set(c, p, v)
	if err != nil {
		return nil, nil, err
	}
	rb, err := json.Marshal(r)
	if err != nil {
		return nil, nil, err
	}
	return out, rb, nil
}

func (jsonCodec) del(c []byte, p []string, receipt json.RawMessage) ([]byte, error) {
	var r jsonkeys.Receipt
	if len(receipt) > 0 {
		if err := json.Unmarshal(receipt, &r); err != nil {
			return nil, fmt.Errorf("receipt of %v: %w", p, err)
		}
	}
	return jsonkeys.Delete(c, p, r)
}

func (jsonCodec) empty(c []byte) bool { return blank(c) || jsonkeys.IsEmptyObject(c) }

// blank reports whether c holds only whitespace.
func blank(c []byte) bool { return len(bytes.TrimSpace(c)) == 0 }

// canonical returns v in the canonical form the key libraries' Get
// reports, so desired and found values compare byte for byte.
func canonical(v json.RawMessage) json.RawMessage {
	c, err := jsonkeys.Canonical(v)
	if err != nil {
		return v
	}
	return c
}
