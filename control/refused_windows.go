package control

import (
	"errors"

	"golang.org/x/sys/windows"
)

// refused: nobody listens on the socket.
func refused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }
