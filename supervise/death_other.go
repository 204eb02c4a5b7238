//go:build unix && !linux

package supervise

import "syscall"

func setDeathSignal(*syscall.SysProcAttr) {}
