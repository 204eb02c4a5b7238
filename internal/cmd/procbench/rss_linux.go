package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident memory of the finished process ps, in KiB.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
