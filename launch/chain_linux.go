package launch

import (
	"bytes"
	"os"
	"strconv"
)

// procTree reads the process tree from /proc.
type procTree struct{}

func selfPID() int { return os.Getpid() }

func (procTree) env(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}

// parent reads field 4 (ppid) of /proc/PID/stat; the command name before
// it, in parentheses, may hold spaces and parentheses.
func (procTree) parent(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid
}
