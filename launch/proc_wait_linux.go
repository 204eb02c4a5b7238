package launch

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// awaitExit returns once the process has exited (it is then a zombie
// that Wait reaps at once), without holding an OS thread meanwhile: a
// pidfd of it is polled in the runtime's network poller, as a pipe is.
// os.Process.Wait alone blocks one thread in waitid per child, so `up`
// would hold a thread per agent (docs/runtime.md, "Limits"). Where
// pidfds are unavailable (Linux before 5.3, a seccomp filter) it
// returns at once and Wait blocks as before.
func awaitExit(p *os.Process) {
	fd, err := unix.PidfdOpen(p.Pid, 0)
	if err != nil {
		return
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// A pidfd is readable once its process has exited; the callback
	// returning false parks this goroutine in the poller until it is.
	// Were the pidfd not pollable, Read would return after one call.
	_ = rc.Read(func(fd uintptr) bool { return exited(int(fd)) })
}

// exited reports whether the process of pidfd has exited (or the pidfd
// cannot be polled, so that the caller stops waiting on it).
func exited(pidfd int) bool {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if err == syscall.EINTR {
			continue
		}
		return err != nil || n > 0
	}
}
