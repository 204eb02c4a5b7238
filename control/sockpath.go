//go:build unix || windows

package control

import "syscall"

// maxSocketPath is the longest socket path net accepts: the kernel's
// sun_path less the terminating NUL (107 bytes on Linux and Windows, 103
// on macOS and the BSDs).
const maxSocketPath = len(syscall.RawSockaddrUnix{}.Path) - 1
