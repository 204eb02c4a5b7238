//go:build !unix

package launch

import "os"

// PIDAlive reports whether a process with this pid exists. Outside unix
// FindProcess opens a handle, which fails for a process that is gone.
func PIDAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
