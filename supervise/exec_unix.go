//go:build unix

package supervise

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/actctl/actctl/launch"
)

// Command starts a program as the leader of a new process group, so that
// everything it forks can be signalled at once and nothing of it outlives
// a stop. It is the plain-process Starter; the ACP client's launch, which
// also holds the agent's stdio, takes its place in `actctl up`.
type Command struct {
	Path string
	Args []string // without the program name
	Env  []string // nil: the current environment
	Dir  string
	// Stdout and Stderr receive the process's output (a log file, a
	// pipe); nil discards it. They are files, not writers, so that no copy
	// goroutine keeps Wait from returning while an orphaned grandchild
	// still holds the output open: the group kill comes after Wait.
	Stdout, Stderr *os.File
}

// Start starts the program; ctx is not used after Start returns.
func (c Command) Start(ctx context.Context) (Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env, cmd.Dir = c.Env, c.Dir
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	if c.Stderr != nil {
		cmd.Stderr = c.Stderr
	}
	launch.SetProcessGroup(cmd) // and, on Linux, killed if actctl dies
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Path, err)
	}
	p := &execProcess{cmd: cmd, done: make(chan struct{})}
	go p.wait()
	return p, nil
}

type execProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// wait reaps the leader, then kills what is left of its group (children
// that ignored SIGTERM or were orphaned by a crash).
func (p *execProcess) wait() {
	p.err = p.cmd.Wait()
	p.signal(syscall.SIGKILL)
	close(p.done)
}

func (p *execProcess) Pid() int              { return p.cmd.Process.Pid }
func (p *execProcess) Done() <-chan struct{} { return p.done }
func (p *execProcess) Err() error            { <-p.done; return p.err }
func (p *execProcess) Terminate() error      { return p.signal(syscall.SIGTERM) }
func (p *execProcess) Kill() error           { return p.signal(syscall.SIGKILL) }

func (p *execProcess) signal(sig syscall.Signal) error {
	return launch.SignalGroup(p.cmd.Process.Pid, sig)
}
