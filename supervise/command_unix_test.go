//go:build unix

package supervise

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/actctl/actctl/launch"
)

// Command starts a program as the leader of a new process group, so that
// everything it forks can be signalled at once and nothing of it outlives
// a stop. It is the tests' plain-process Starter; in `actctl up` the ACP
// client's launch, which also holds the agent's stdio, is the Starter.
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

// Start starts the program (launch.Supervise); ctx is not used after
// Start returns.
func (c Command) Start(ctx context.Context) (Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Path, err)
	}
	defer null.Close() // the process has its own copy
	out, errOut := null, null
	if c.Stdout != nil {
		out = c.Stdout
	}
	if c.Stderr != nil {
		errOut = c.Stderr
	}
	// Its own group (and, on Linux, killed if actctl dies), killed once
	// the leader was reaped: children that ignored SIGTERM or were
	// orphaned by a crash go with it.
	p, err := launch.Supervise(launch.Spec{Command: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir, Output: out, ErrOutput: errOut})
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Path, errors.Unwrap(err))
	}
	return execProcess{p}, nil
}

// execProcess is a Command's process.
type execProcess struct{ p *launch.Proc }

func (e execProcess) Pid() int              { return e.p.Pid() }
func (e execProcess) Done() <-chan struct{} { return e.p.Done() }
func (e execProcess) Err() error            { return e.p.Wait() }
func (e execProcess) Terminate() error      { return e.p.Terminate() }
func (e execProcess) Kill() error           { return e.p.KillGroup() }
