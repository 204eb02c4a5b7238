package supervise

import "syscall"

// setDeathSignal has the kernel SIGKILL the process if actctl dies without
// stopping it (kill -9, the OOM killer). Only the leader gets the signal;
// its children go with the group kill on every path actctl controls.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
