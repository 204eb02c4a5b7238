//go:build !windows

package control

import (
	"errors"
	"syscall"
)

// refused: nobody listens on the socket.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
