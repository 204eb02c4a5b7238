package up

import "os"

// kill sends SIGKILL (on Windows: TerminateProcess) to pid, as a crash.
func kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
