//go:build !linux

package launch

import (
	"errors"
	"fmt"
	"io/fs"
)

// noFollow: the ledger is not kept here (startTime fails).
const noFollow = 0

// startTime: outside Linux there is no portable way to read another
// process's start time (or environment, see KillMarked), so no ledger is
// kept and Sweep finds nothing: a known limitation.
func startTime(int) (uint64, error) {
	return 0, fmt.Errorf("process start times: %w", errors.ErrUnsupported)
}

// recordedLeader: no process here can be proved to be one actctl started
// (its environment cannot be read), so no ledger line is signalled.
func recordedLeader(int, uint64, string) bool { return false }

// ownedByMe: no ledger is read here.
func ownedByMe(fs.FileInfo) bool { return false }
