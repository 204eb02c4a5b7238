//go:build !linux

package launch

import (
	"errors"
	"fmt"
)

// noFollow: the ledger is not kept here (startTime fails).
const noFollow = 0

// startTime: outside Linux there is no portable way to read another
// process's start time (or environment, see KillMarked), so no ledger is
// kept and Sweep finds nothing: a known limitation.
func startTime(int) (uint64, error) {
	return 0, fmt.Errorf("process start times: %w", errors.ErrUnsupported)
}
