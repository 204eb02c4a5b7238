package launch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/tail"
)

// Spec is a process to supervise (see Supervise): a backend with stdio
// pipes (Output nil) or a helper whose output is collected (a terminal,
// a hook: Output set).
type Spec struct {
	Command string
	Args    []string
	Env     []string // nil: os.Environ()
	Dir     string   // "": the current directory
	// Install is the install hint a StartError names.
	Install string

	// Stderr receives a copy of a backend's stderr, one line (at most
	// 4 KiB) per Write; write errors are ignored so that the backend is
	// never blocked on a full pipe. TailSize bytes of it are kept for
	// error messages either way (Tail).
	Stderr   io.Writer
	TailSize int

	// Output, if set, receives the helper's stdout and stderr; Wait gives
	// up on output a stray child keeps open OutputDelay after the helper
	// exited. A helper gets no session mark and no PWD of its own.
	Output io.Writer
	// ErrOutput, if set, receives a helper's stderr instead of Output.
	// Files (a log) are given to the helper as they are: no copy
	// goroutine keeps Wait waiting.
	ErrOutput io.Writer
	// Context, if set, kills a helper's group when it is done (a hook's
	// timeout). A backend is stopped by its supervisor (Stop).
	Context context.Context
	// KeepGroup leaves the group alive when its leader exits (a terminal's
	// background jobs live until the terminal is released); otherwise
	// the group is killed once the leader was reaped.
	KeepGroup bool
	// OnExit, if set, is called by the goroutine that reaped a supervised
	// process, once Done is closed: what its caller would otherwise hold
	// a goroutine of its own waiting on Done for (a thousand idle agents,
	// a thousand goroutines).
	OnExit func(*Proc)
}

// OutputDelay: see Spec.Output.
const OutputDelay = time.Second

// StartError is a process that could not be started. Its message names
// the command and, unless its directory was the problem (DirError), how
// to install it.
type StartError struct {
	Command string
	Install string
	Err     error
}

func (e *StartError) Error() string {
	msg := fmt.Sprintf("backend %q could not be started: %v", e.Command, e.Err)
	var dirErr *DirError
	if e.Install != "" && !errors.As(e.Err, &dirErr) {
		msg += "; install it: " + e.Install
	}
	return msg
}

func (e *StartError) Unwrap() error { return e.Err }

// InstallHint is what a message about a backend that exited during its
// start adds: "; is it installed? " and the hint ("" without one).
func InstallHint(install string) string {
	if install == "" {
		return ""
	}
	return "; is it installed? " + install
}

// ErrorKind says why a supervised session ended badly (the Kind of
// acpclient.Error and proxy.Error).
type ErrorKind int

const (
	// ErrStart: the backend could not be started, or ended before the
	// session was set up.
	ErrStart ErrorKind = iota + 1
	// ErrCrash: the backend exited (or broke the protocol) during the
	// session.
	ErrCrash
	// ErrAnswered: the agent answered a turn with an error; the backend
	// still runs (acpclient).
	ErrAnswered
	// ErrInterrupted: the supervisor was interrupted (a signal; proxy).
	ErrInterrupted
	// ErrProtocol: a peer sent a message larger than allowed (proxy).
	ErrProtocol
)

// Proc is a supervised process: started as the leader of its own group
// (Unix) and reaped in the background. Done is closed once it was reaped
// and, unless Spec.KeepGroup, its group killed.
type Proc struct {
	Process // Stdout and Stdin: a backend's pipes; stderr is copied (Spec.Stderr)

	spec       Spec
	tail       *tail.Buffer
	done       chan struct{}
	stderrDone chan struct{}
	err        error // Cmd.Wait's, valid after done
}

// Supervise starts s. Its error is a *StartError, wrapping a *LimitError
// when the start would cross (or crossed) a resource limit.
func Supervise(s Spec) (*Proc, error) {
	pr, err := start(s)
	if err != nil {
		return nil, err
	}
	p := &Proc{Process: *pr, spec: s, tail: tail.New(s.TailSize), done: make(chan struct{}), stderrDone: make(chan struct{})}
	if p.Stderr != nil {
		go p.copyStderr()
	} else {
		close(p.stderrDone)
	}
	go p.reap()
	return p, nil
}

// startMu makes a start's limit check and the start one step: starts
// checked at once would each find the room that only one of them has.
var startMu sync.Mutex

// start checks the limits (checkLimits), then starts s.
func start(s Spec) (*Process, error) {
	startMu.Lock()
	defer startMu.Unlock()
	if err := checkLimits(); err != nil {
		return nil, &StartError{Command: s.Command, Err: err}
	}
	var pr *Process
	var err error
	if s.Output == nil {
		pr, err = Start(s.Command, s.Args, s.Env, s.Dir)
	} else {
		pr, err = startHelper(s)
	}
	if err != nil {
		return nil, startError(s, err)
	}
	return pr, nil
}

// startError is the StartError of s's failed start: a limit it hit is
// named, and then no install hint given (the command exists).
func startError(s Spec, err error) *StartError {
	if lim := HitLimit(err); lim != nil {
		return &StartError{Command: s.Command, Err: lim}
	}
	return &StartError{Command: s.Command, Install: s.Install, Err: err}
}

// startHelper starts a helper whose output goes to s.Output.
func startHelper(s Spec) (*Process, error) {
	var cmd *exec.Cmd
	if s.Context != nil {
		cmd = exec.CommandContext(s.Context, s.Command, s.Args...)
		cmd.Cancel = func() error { return KillGroup(cmd.Process.Pid) }
	} else {
		cmd = exec.Command(s.Command, s.Args...)
	}
	cmd.Dir, cmd.Env = s.Dir, s.Env
	cmd.Stdout, cmd.Stderr = s.Output, s.Output
	if s.ErrOutput != nil {
		cmd.Stderr = s.ErrOutput
	}
	cmd.WaitDelay = OutputDelay
	// Its own group, and on Linux the parent-death signal: a helper dies
	// with actctl even when actctl is killed.
	SetProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Process{Cmd: cmd}, nil
}

// reap waits for the leader, then kills what is left of its group (the
// group outlives its leader), unless the spec keeps it. It waits in the
// poller (awaitExit) so that a thousand children hold no thread each.
func (p *Proc) reap() {
	awaitExit(p.Cmd.Process)
	p.err = p.Cmd.Wait()
	if !p.spec.KeepGroup {
		_ = KillGroup(p.Pid())
	}
	close(p.done)
	if p.spec.OnExit != nil {
		p.spec.OnExit(p)
	}
}

// copyStderr copies the backend's stderr, a line at a time, to the tail
// and Spec.Stderr until EOF or Drain's deadline.
func (p *Proc) copyStderr() {
	defer close(p.stderrDone)
	br := bufio.NewReaderSize(p.Stderr, 4096)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			_, _ = p.tail.Write(chunk)
			if p.spec.Stderr != nil {
				_, _ = p.spec.Stderr.Write(chunk)
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// Pid is the leader's process id (and its group's).
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

// Done is closed once the leader was reaped (see Proc).
func (p *Proc) Done() <-chan struct{} { return p.done }

// Wait waits for Done and returns Cmd.Wait's error.
func (p *Proc) Wait() error {
	<-p.done
	return p.err
}

// State is the leader's exit state once Done is closed (nil before, or
// when it could not be waited for).
func (p *Proc) State() *os.ProcessState {
	select {
	case <-p.done:
		return p.Cmd.ProcessState
	default:
		return nil
	}
}

// Tail is the end of the backend's stderr (see Spec.TailSize).
func (p *Proc) Tail() *tail.Buffer { return p.tail }

// Terminate asks the group to end (SIGTERM; outside Unix the leader is
// killed).
func (p *Proc) Terminate() error { return TerminateGroup(p.Pid()) }

// KillGroup kills the group (see KillGroup).
func (p *Proc) KillGroup() error { return KillGroup(p.Pid()) }

// KillMarked kills every process with the backend's session mark, also
// those that left its group (see KillMarked).
func (p *Proc) KillMarked() (int, error) { return KillMarked(p.Mark) }

// drainSlack is how long after Drain's deadline a stderr copy blocked on
// its writer is waited for.
const drainSlack = 100 * time.Millisecond

// Drain bounds the reading of the backend's remaining output: reads of
// its stdout and stderr fail at deadline. It returns once its stderr was
// copied, or shortly after the deadline when the copy is blocked on
// Spec.Stderr (a stalled reader of it never holds up the supervisor).
func (p *Proc) Drain(deadline time.Time) {
	if p.Stdout != nil {
		_ = p.Stdout.SetReadDeadline(deadline)
	}
	if p.Stderr != nil {
		_ = p.Stderr.SetReadDeadline(deadline)
	}
	t := time.NewTimer(time.Until(deadline) + drainSlack)
	defer t.Stop()
	select {
	case <-p.stderrDone:
	case <-t.C:
	}
}

// Ask is how Stop asks a process to end.
type Ask int

const (
	// AskEOF closes its stdin (an ACP backend ends on EOF).
	AskEOF Ask = iota
	// AskTerm sends SIGTERM to its group (outside Unix: kills it).
	AskTerm
	// Asked: the caller already asked (the proxy's client loop closed
	// stdin); Stop only waits.
	Asked
)

// StopPolicy is how a process is stopped: asked to end, given Grace to
// exit, then killed.
type StopPolicy struct {
	Ask   Ask
	Grace time.Duration
}

// Await asks the process to end as pol says and waits up to pol.Grace
// (ctx ends the wait early) for it to be reaped. It reports whether it
// was; it does not kill it (see Stop).
func (p *Proc) Await(ctx context.Context, pol StopPolicy) bool {
	switch pol.Ask {
	case AskEOF:
		if p.Stdin != nil {
			_ = p.Stdin.Close()
		}
	case AskTerm:
		_ = p.Terminate()
	}
	t := time.NewTimer(pol.Grace)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// Stop is Await, then the group and every process with the session mark
// are killed, and the leader reaped. Nothing of the process outlives it.
func (p *Proc) Stop(ctx context.Context, pol StopPolicy) bool {
	exited := p.Await(ctx, pol)
	_ = p.KillGroup()
	<-p.done
	_, _ = p.KillMarked()
	return exited
}
