//go:build !linux

package launch

import (
	"errors"
	"os"
	"strings"
)

// procTree outside Linux sees this process's own environment only: there
// is no portable way to read another process's (a known limitation,
// docs/run.md "Delegation").
type procTree struct{}

func selfPID() int { return os.Getpid() }

func (procTree) env(pid int) ([]byte, error) {
	if pid != os.Getpid() {
		return nil, errors.New("the environment of another process cannot be read here")
	}
	return []byte(strings.Join(os.Environ(), "\x00")), nil
}

func (procTree) parent(int) int { return 0 }
