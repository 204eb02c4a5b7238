package proxy

import "syscall"

// setParentDeathSignal asks the kernel to SIGKILL the backend if the proxy
// dies without cleaning up (kill -9, OOM killer, or an ACP client such as
// the SDK's example client that ends its agent with SIGKILL). Only the
// group leader gets this signal; its children are covered by killGroup on
// every path the proxy controls.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
