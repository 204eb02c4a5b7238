//go:build unix

package reconcile

import (
	"syscall"
	"time"
)

// cpuTime is the process's user + system CPU time. Benchmarks report it
// per op ("cpu-ms/op") beside the wall time: on a shared machine the wall
// time includes waiting for a core, the CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
