package launch

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// setParentDeathSignal asks the kernel to SIGKILL the backend if its supervisor (proxy, run)
// dies without cleaning up (kill -9, OOM killer, or an ACP client such as
// the SDK's example client that ends its agent with SIGKILL). Only the
// group leader gets this signal; its children are covered by KillGroup on
// every path the supervisor controls.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// KillMarked sends SIGKILL to every process whose environment carries the
// session mark (see MarkVar) and returns how many it signalled. It
// rescans until a pass finds none, so a process forked during a scan is
// caught by the next one. Processes of other users, whose environment
// cannot be read, are skipped: the backend runs as its supervisor's user.
func KillMarked(mark string) int {
	if mark == "" {
		return 0
	}
	needle := []byte(MarkVar + "=" + mark + "\x00")
	self := os.Getpid()
	killed := map[int]bool{}
	for pass := 0; pass < 10; pass++ {
		found := 0
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return len(killed)
		}
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !hasEnvEntry(env, needle) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				found++
				killed[pid] = true
			}
		}
		if found == 0 {
			break
		}
	}
	return len(killed)
}

// hasEnvEntry reports whether the NUL-separated environment block env
// holds the entry needle (which ends in NUL) as a whole entry.
func hasEnvEntry(env, needle []byte) bool {
	if len(env) > 0 && env[len(env)-1] != 0 {
		env = append(env, 0)
	}
	return bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...))
}
