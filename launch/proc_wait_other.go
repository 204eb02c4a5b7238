//go:build !linux

package launch

import "os"

// awaitExit: outside Linux there are no pidfds; Wait blocks a thread
// per child as os.Process.Wait does (docs/runtime.md, "Limits").
func awaitExit(*os.Process) {}
