package up

import (
	"io"
	"net"
	"syscall"
)

// peerUID is the uid of the process at the other end of w, when w is a
// Unix socket connection (the control socket's): the kernel's word, not
// the client's.
func peerUID(w io.Writer) (int, bool) {
	uc, ok := w.(*net.UnixConn)
	if !ok {
		return 0, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return 0, false
	}
	return int(cred.Uid), true
}
