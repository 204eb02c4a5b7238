package reconcile

import (
	"encoding/json"
	"fmt"

	"github.com/actctl/actctl/internal/tomlkeys"
)

// tomlCodec adapts internal/tomlkeys (.codex/config.toml).
type tomlCodec struct{}

func (tomlCodec) get(c []byte, p []string) (json.RawMessage, bool, error) { return tomlkeys.Get(c, p) }

func (tomlCodec) set(c []byte, p []string, v json.RawMessage) ([]byte, json.RawMessage, error) {
	out, r, err := tomlkeys.Set(c, p, v)
	if err != nil {
		return nil, nil, err
	}
	rb, err := json.Marshal(r)
	if err != nil {
		return nil, nil, err
	}
	return out, rb, nil
}

func (tomlCodec) del(c []byte, p []string, receipt json.RawMessage) ([]byte, error) {
	var r tomlkeys.Receipt
	if len(receipt) > 0 {
		if err := json.Unmarshal(receipt, &r); err != nil {
			return nil, fmt.Errorf("receipt of %v: %w", p, err)
		}
	}
	return tomlkeys.Delete(c, p, r)
}

func (tomlCodec) empty(c []byte) bool { return blank(c) || tomlkeys.IsEmpty(c) }
