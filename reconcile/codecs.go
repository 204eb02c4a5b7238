package reconcile

// The codecs of the structured files whose keys actctl manages (JSON,
// JSONC, TOML), behind one interface for the planner.

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/actctl/actctl/internal/tomlkeys"
	"github.com/actctl/actctl/schema"
)

// keyCodec adapts one structured-file library (internal/jsonkeys,
// internal/tomlkeys) to the planner: values are canonical JSON both ways,
// receipts are opaque JSON stored in the state.
type keyCodec interface {
	get(content []byte, path []string) (json.RawMessage, bool, error)
	set(content []byte, path []string, v json.RawMessage) ([]byte, json.RawMessage, error)
	del(content []byte, path []string, receipt json.RawMessage) ([]byte, error)
	// offset is where the key's definition starts in content (ok false
	// when it is not there): the order in which a replay takes keys out
	// (see editItems).
	offset(content []byte, path []string) (int, bool)
	// empty reports whether a file actctl created holds nothing any more
	// (so it can be deleted).
	empty(content []byte) bool
}

func codecFor(format string) (keyCodec, error) {
	switch format {
	case schema.FormatJSON:
		return libCodec[jsonkeys.Receipt]{jsonkeys.Get, jsonkeys.Set, jsonkeys.Delete, jsonkeys.IsEmptyObject, jsonkeys.Offset}, nil
	case schema.FormatTOML:
		return libCodec[tomlkeys.Receipt]{tomlkeys.Get, tomlkeys.Set, tomlkeys.Delete, tomlkeys.IsEmpty, tomlkeys.Offset}, nil
	}
	return nil, fmt.Errorf("unknown structured format %q", format)
}

// libCodec adapts a key library whose Set returns a receipt of type R
// (stored in the state as JSON) that its Delete takes back.
type libCodec[R any] struct {
	getF   func(content []byte, path []string) (json.RawMessage, bool, error)
	setF   func(content []byte, path []string, v json.RawMessage) ([]byte, R, error)
	delF   func(content []byte, path []string, r R) ([]byte, error)
	emptyF func(content []byte) bool
	offF   func(content []byte, path []string) (int, bool, error)
}

func (l libCodec[R]) get(c []byte, p []string) (json.RawMessage, bool, error) { return l.getF(c, p) }

func (l libCodec[R]) set(c []byte, p []string, v json.RawMessage) ([]byte, json.RawMessage, error) {
	out, r, err := l.setF(c, p, v)
	if err != nil {
		return nil, nil, err
	}
	rb, err := json.Marshal(r)
	if err != nil {
		return nil, nil, err
	}
	return out, rb, nil
}

func (l libCodec[R]) del(c []byte, p []string, receipt json.RawMessage) ([]byte, error) {
	var r R
	if len(receipt) > 0 {
		if err := json.Unmarshal(receipt, &r); err != nil {
			return nil, fmt.Errorf("receipt of %v: %w", p, err)
		}
	}
	return l.delF(c, p, r)
}

func (l libCodec[R]) empty(c []byte) bool { return blank(c) || l.emptyF(c) }

func (l libCodec[R]) offset(c []byte, p []string) (int, bool) {
	off, ok, err := l.offF(c, p)
	return off, ok && err == nil
}

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
