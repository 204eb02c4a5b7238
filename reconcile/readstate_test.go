package reconcile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/userkey"
)

// ReadState reads the state file at path, its seal (if any) left
// unchecked; a missing file is an empty state. Apply trusts a state only as readTrusted says. The bytes it returns
// must not be changed: the state's strings share their memory (see
// decodeStateFast).
func ReadState(path string) (*State, []byte, error) {
	data, err := readRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewState(), nil, nil
	}
	if err != nil {
		return nil, nil, layout.NotDir(filepath.Dir(path), fmt.Errorf("read state: %w", err))
	}
	body, _ := userkey.SplitJSON(data)
	st, err := parseState(body)
	if err != nil {
		return nil, nil, damagedState(path, err)
	}
	return st, data, nil
}
