package control

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/lockedfile"
)

// AgentLockPath is the lock an employee's tasks hold, in the run
// directory: `task-AGENT.lock` (docs/runtime.md, "actctl task").
func AgentLockPath(root, agent string) string {
	return layout.Path(root, layout.Run, "task-"+agent+".lock")
}

// AgentLock is a held per-agent lock: one `actctl task` of the agent, or
// an `actctl up` running it. It is a kernel lock, released when its
// holder dies (kill -9 included).
type AgentLock struct{ f *os.File }

// AgentBusyError says who holds an agent's lock: Holder is "up" or
// "task" ("" when the holder has not written it yet), Pid its pid (0 when
// unknown).
type AgentBusyError struct {
	Agent, Holder string
	Pid           int
}

func (e *AgentBusyError) Error() string {
	who := "another actctl"
	if e.Holder != "" {
		who = "actctl " + e.Holder
	}
	if e.Pid > 0 {
		who += fmt.Sprintf(" (pid %d)", e.Pid)
	}
	return fmt.Sprintf("agent %s is busy: %s holds it", e.Agent, who)
}

// LockAgent takes agent's lock without waiting, for holder ("up" or
// "task"), and writes "HOLDER PID" into it. The run directory and the
// lock file are checked as up.lock is (RunDir). When another process
// holds it, it returns an *AgentBusyError naming that process.
func LockAgent(root, agent, holder string) (*AgentLock, error) {
	if _, err := RunDir(root, true); err != nil {
		return nil, err
	}
	path := AgentLockPath(root, agent)
	f, err := openLock(path)
	if err != nil {
		return nil, err
	}
	if err := lockedfile.TryLock(f); err != nil {
		f.Close()
		if errors.Is(err, lockedfile.ErrWouldBlock) {
			h, pid := readHolder(path)
			return nil, &AgentBusyError{Agent: agent, Holder: h, Pid: pid}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	line := holder + " " + strconv.Itoa(os.Getpid()) + "\n"
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(line), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &AgentLock{f: f}, nil
}

// Close releases the lock (its file stays, emptied: the next holder
// writes its own line).
func (l *AgentLock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := l.f.Close()
	l.f = nil
	return err
}

// readHolder reads the "HOLDER PID" line of an agent lock.
func readHolder(path string) (string, int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return "", 0
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 0 {
		return "", 0
	}
	return f[0], pid
}
