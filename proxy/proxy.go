// Package proxy is the ACP bridge behind `actctl proxy` (README, "Editors: ACP
// proxy and Zed"): an ACP agent on stdio that starts the agent's real ACP
// backend and relays JSON-RPC between the editor (the client) and the backend.
//
// The relay works on raw lines. It parses only the JSON-RPC envelope (id,
// method, and params.cwd of session/new, session/load and session/resume;
// the modes of the answer to session/new, to put the session in the
// preset's mode: mode.go) and forwards the original bytes, in order, one
// goroutine per direction.
// That is the only way to be lossless: a typed ACP decoder drops unknown
// methods, update kinds and fields, and a concurrent handler reorders
// messages. github.com/coder/acp-go-sdk is used where actctl itself speaks
// ACP: method names and the JSON-RPC errors the proxy answers with.
//
// Process supervision: the backend runs in its own process group, in the
// archetype's processCwd; every way Run ends kills that group, so nothing
// the backend started survives the session.
package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
)

// Defaults for Options.
const (
	// DefaultGrace is how long a backend may take to exit by itself after
	// the client disconnected and its stdin was closed.
	DefaultGrace = 3 * time.Second
	// DefaultMaxMessageSize bounds one JSON-RPC line. ACP messages carry
	// whole files and images, so the spec requires at least 32 MiB to pass;
	// the bound only protects the proxy from a peer that never sends "\n".
	DefaultMaxMessageSize = 64 << 20
	// DefaultInitWait bounds how long a proxy that cannot serve (the
	// backend failed to start, or the agent cannot be prepared) waits for
	// the client's initialize, to answer it with the reason. Editors send
	// it at once, so the wait normally ends at once; a slow client still
	// gets the error instead of a closed pipe.
	DefaultInitWait = 30 * time.Second
)

// Timing of the end of a session. They are not options: they only bound
// waits that normally end at once.
const (
	// drainTimeout bounds reading the backend's remaining output after the
	// group was killed (it only matters if a process escaped the group and
	// holds the pipes).
	drainTimeout = 2 * time.Second
)

// Options configures one proxy session. Command, Stdin and Stdout are
// required.
type Options struct {
	// Command, Args and Env are the backend's acp command, already resolved
	// for this OS. A Command without a path separator is looked up in the
	// proxy's $PATH. Env nil means the proxy's environment.
	Command string
	Args    []string
	Env     []string

	// ProcessCwd is the directory the backend runs in (the archetype's
	// processCwd resolved to a path); empty means the proxy's own cwd.
	ProcessCwd string
	// SessionCwd is the archetype's sessionCwd policy: schema.CwdClient
	// (default; the client's cwd reaches the backend unchanged) or
	// schema.CwdWorkspace (the cwd of session/new, session/load and
	// session/resume is replaced by Workspace).
	SessionCwd string
	// Workspace is the absolute workspace directory used for
	// SessionCwd == schema.CwdWorkspace.
	Workspace string
	// InstallHint tells the user how to install the backend; it is part of
	// the error the client sees when the backend cannot be started.
	InstallHint string

	// Stdin and Stdout are the client's JSON-RPC stream. Only JSON-RPC is
	// ever written to Stdout.
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr receives the proxy's log lines and the backend's stderr
	// (nil: discarded). Log and LogFile, when set, receive the same lines
	// with timestamps; LogFile is opened for appending, its directory
	// created.
	Stderr  io.Writer
	Log     io.Writer
	LogFile string

	// Grace is how long the backend may run on after the client
	// disconnected and its stdin was closed, before its process group is
	// killed. 0 means DefaultGrace; negative means no wait.
	Grace time.Duration
	// MaxMessageSize bounds one message in either direction; 0 means
	// DefaultMaxMessageSize. A longer message ends the session with an
	// error (ErrProtocol): it cannot be forwarded, and dropping it would
	// leave the peer waiting forever.
	MaxMessageSize int
	// InitWait bounds the wait for the client's initialize after the
	// backend failed to start (see DefaultInitWait, used for 0); negative
	// means no wait.
	InitWait time.Duration

	// Mode is the ACP session mode of the agent's preset (acpclient.ModeFor):
	// every session/new the backend answers is put in it when the agent
	// offers it (mode.go); "" leaves the agent's own.
	Mode string

	// OnStart, if set, is called with the backend's pid once it runs (the
	// CLI records it in .actant.json).
	OnStart func(pid int)
	// OnSession, if set, is called for every session/new, load, resume and
	// fork request, and every session/list with a cwd filter, forwarded to
	// the backend.
	OnSession func(SessionEvent)
	// Hooks, if set, is the session plugins' interception point
	// (rpcpeer.Hooks): a client's session/prompt before the backend sees
	// it, the backend's session/update and its answer to session/prompt
	// before the client does. Without it every line not named above
	// passes byte for byte.
	Hooks *rpcpeer.Hooks
	// Trace, if set, gets one line per message relayed (--debug-acp:
	// rpcpeer.Trace, never a message's text).
	Trace *rpcpeer.Trace
	// MessageLog, if set, gets every line the proxy writes to the backend
	// and to the client, as it went (after the plugins), through
	// Hooks.Logged (the redact plugins) first: the session's message log
	// (docs/plugins.md, "What the logs record"). It is called with one
	// whole line at a time, under the lock of that direction's writer.
	MessageLog func(line []byte)
}

// SessionEvent describes a session request as it passed the proxy.
type SessionEvent struct {
	Method     string // session/new, session/load or session/resume
	ClientCwd  string // cwd the client sent
	BackendCwd string // cwd the backend received
}

// ErrorKind says why a session ended badly (see launch.ErrorKind).
type ErrorKind = launch.ErrorKind

const (
	// ErrStart: the backend could not be started, or exited before it
	// answered initialize.
	ErrStart = launch.ErrStart
	// ErrCrash: the backend exited during the session.
	ErrCrash = launch.ErrCrash
	// ErrInterrupted: Run's context was cancelled (a signal).
	ErrInterrupted = launch.ErrInterrupted
	// ErrProtocol: a peer sent a message larger than MaxMessageSize.
	ErrProtocol = launch.ErrProtocol
)

// Error is returned by Run for every end other than the client
// disconnecting; the CLI exits non-zero on it. Run has already logged its
// message (to Stderr and the log file): callers should not print it again.
type Error struct {
	Kind    ErrorKind
	Command string
	// ExitCode is the backend's exit code, -1 if it was not started or
	// was killed by a signal.
	ExitCode int
	// Err is the underlying cause (exec error, context cause, ...).
	Err error
	msg string
}

func (e *Error) Error() string { return e.msg }
func (e *Error) Unwrap() error { return e.Err }

// Run starts the backend and relays until the session ends:
//
//   - client EOF (or a failed write to the client): the backend's stdin is
//     closed, it gets Grace to exit, then its process group is killed; Run
//     returns nil.
//   - ctx cancelled (the CLI cancels it on launch.Signals): the group is killed at
//     once, pending client requests get an error; Run returns an *Error of
//     kind ErrInterrupted.
//   - the backend exits or cannot be started: its remaining output is
//     relayed, then every request of the client still waiting for an
//     answer gets a JSON-RPC error naming the command (and, before
//     initialize succeeded, the install hint); Run returns an *Error of
//     kind ErrStart or ErrCrash.
//
// Run may leave one goroutine blocked reading Stdin if Stdin is never closed
// (os.Stdin cannot be interrupted); it exits with the process. The CLI
// should ignore SIGPIPE so a vanished client is seen as a write error
// instead of killing the proxy before it can kill the backend group.
func Run(ctx context.Context, o Options) error {
	if err := checkOptions(&o); err != nil {
		return err
	}
	logs, closeLog, err := openLog(o)
	if err != nil {
		return err
	}
	defer closeLog()
	r := &relay{
		o:            o,
		log:          &logger{stderr: o.Stderr, file: logs, now: time.Now},
		clientDone:   make(chan struct{}),
		initAnswered: make(chan struct{}),
		fatal:        make(chan error, 2),
	}
	r.out = newLockedWriter(o.Stdout, func(err error) { r.setClientGone() })
	r.out.log = r.logLine
	if o.SessionCwd == schema.CwdWorkspace {
		r.cwd = rpcpeer.CwdPolicy{Workspace: o.Workspace}
	}
	defer r.out.close()
	return r.run(ctx)
}

// checkOptions refuses options Run cannot serve and fills in the
// defaults.
func checkOptions(o *Options) error {
	if o.Command == "" {
		return errors.New("proxy: no backend command")
	}
	if o.Stdin == nil || o.Stdout == nil {
		return errors.New("proxy: Stdin and Stdout are required")
	}
	switch o.SessionCwd {
	case "", schema.CwdClient:
		o.SessionCwd = schema.CwdClient
	case schema.CwdWorkspace, schema.CwdWorkspaceClient:
		if !filepath.IsAbs(o.Workspace) {
			return fmt.Errorf("proxy: sessionCwd %q needs an absolute workspace directory, got %q", o.SessionCwd, o.Workspace)
		}
	default:
		return fmt.Errorf("proxy: unknown sessionCwd %q (want %q, %q or %q)", o.SessionCwd, schema.CwdClient, schema.CwdWorkspace, schema.CwdWorkspaceClient)
	}
	if o.Grace == 0 {
		o.Grace = DefaultGrace
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	return nil
}

// openLog is where the proxy's timestamped log lines go: Options.Log and
// the file Options.LogFile, opened for appending (never through a link: a
// checkout may bring one), its directory created.
func openLog(o Options) (io.Writer, func(), error) {
	if o.LogFile == "" {
		return o.Log, func() {}, nil
	}
	if err := layout.NoLinksIn(o.LogFile); err != nil {
		return nil, nil, fmt.Errorf("proxy: log file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(o.LogFile), 0o755); err != nil {
		return nil, nil, fmt.Errorf("proxy: log file: %w", err)
	}
	f, err := os.OpenFile(o.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND|layout.NoFollow, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("proxy: log file: %w", err)
	}
	close := func() { f.Close() }
	if o.Log != nil {
		return io.MultiWriter(o.Log, f), close, nil
	}
	return f, close, nil
}

type relay struct {
	o   Options
	log *logger
	out *lockedWriter
	// cwd is the archetype's sessionCwd as applied; under
	// "workspace+client" it is set (under mu) once the backend's answer
	// to initialize says whether it takes additionalDirectories.
	cwd rpcpeer.CwdPolicy

	proc   *launch.Proc
	stdinW *os.File   // backend stdin; closed by clientLoop
	in     *backendIn // what is written to stdinW
	modes  *modeSetter

	mu       sync.Mutex
	pending  rpcpeer.Pending[struct{}] // the client's requests the backend has not answered
	dead     bool                      // no backend to forward to: answer requests directly
	deadErr  *acp.RequestError         // the answer
	initOK   bool                      // the backend answered initialize successfully
	isDead   atomic.Bool
	initOnce sync.Once

	clientDone   chan struct{} // client EOF, read error, or write failure
	clientOnce   sync.Once
	initAnswered chan struct{} // the proxy answered an initialize with deadErr
	fatal        chan error    // a message too large, from either side
}

// logLine gives a line written to the backend or the client to
// MessageLog, redacted.
func (r *relay) logLine(line []byte) {
	if r.o.MessageLog != nil {
		r.o.MessageLog(r.o.Hooks.Logged(line))
	}
}

func (r *relay) setClientGone() {
	r.clientOnce.Do(func() { close(r.clientDone) })
}

func (r *relay) markInitAnswered() {
	r.initOnce.Do(func() { close(r.initAnswered) })
}

// How a session ends (sessionEnd.why).
const (
	endClient = iota // the client left (EOF, or a failed write to it)
	endCancel        // Run's context was cancelled
	endExit          // the backend exited
	endFatal         // a message over MaxMessageSize
)

// sessionEnd is how a session ended, and what is known of the backend's
// exit.
type sessionEnd struct {
	why    int
	st     *os.ProcessState // the backend's exit status, once reaped
	reaped bool
	fatal  error // for endFatal
}

// run is the session in its phases: start the backend (or answer the
// client with why it could not), relay both ways until one side ends,
// stop everything the backend started, relay what it still wrote, and
// answer what the client still waits for.
func (r *relay) run(ctx context.Context) error {
	err := r.start()
	r.in = newBackendIn(r)
	if r.o.Mode != "" {
		r.modes = newModeSetter(r, r.o.Mode)
	}
	if err != nil {
		return r.startFailed(ctx, err)
	}
	exited := r.started()
	agentDone := make(chan struct{})
	go r.agentLoop(agentDone)
	go r.clientLoop()
	end := r.awaitEnd(ctx, exited)
	if end.why == endCancel {
		r.log.printf("interrupted (%v); killing backend process group %d", context.Cause(ctx), r.proc.Pid())
	}
	r.stopBackend(&end, exited)
	drained := r.drain(agentDone)
	r.o.Hooks.End() // the plugins' sub-agents end with the session
	if end.why == endClient {
		r.die(nil)
		return nil
	}
	return r.fail(ctx, end, drained)
}

// startFailed answers the client, which has no backend, with the start
// error: every request it sends, until its initialize (awaited for up to
// InitWait).
func (r *relay) startFailed(ctx context.Context, err error) error {
	msg := err.Error() // a launch.StartError
	r.log.printf("%s", msg)
	r.die(&acp.RequestError{Code: rpcpeer.CodeInternal, Message: msg, Data: map[string]any{"command": r.o.Command}})
	go r.clientLoop()
	r.linger(ctx)
	return &Error{Kind: ErrStart, Command: r.o.Command, ExitCode: -1, Err: errors.Unwrap(err), msg: msg}
}

// started reports the started backend and reaps it: the channel gets its
// exit status (nil when it could not be read).
func (r *relay) started() <-chan *os.ProcessState {
	pid := r.proc.Pid()
	r.log.printf("started backend %q (pid %d, cwd %s, sessionCwd %s)", r.o.Command, pid, r.proc.Cmd.Dir, r.o.SessionCwd)
	if r.o.OnStart != nil {
		r.o.OnStart(pid)
	}
	exited := make(chan *os.ProcessState, 1)
	go func() {
		err := r.proc.Wait()
		st := r.proc.Cmd.ProcessState
		if st == nil {
			r.log.printf("waiting for backend: %v", err)
		}
		exited <- st
	}()
	return exited
}

// awaitEnd waits for the first end of the session. A client that left
// first (its EOF closed the backend's stdin) gives the backend Grace to
// exit by itself.
func (r *relay) awaitEnd(ctx context.Context, exited <-chan *os.ProcessState) sessionEnd {
	var end sessionEnd
	select {
	case <-ctx.Done():
		end.why = endCancel
	case end.fatal = <-r.fatal:
		end.why = endFatal
	case end.st = <-exited:
		end.why, end.reaped = endExit, true
		select {
		case <-r.clientDone:
			// Both were ready: the client left first and the backend
			// exited on the EOF it was given.
			end.why = endClient
		default:
		}
	case <-r.clientDone:
		end.why = endClient
		select {
		case end.fatal = <-r.fatal:
			// The client loop ends after reporting an oversized message;
			// that is a protocol failure, not a disconnect.
			end.why = endFatal
		default:
		}
		if end.why == endClient && r.o.Grace > 0 {
			r.graceExit(ctx, &end, exited)
		}
	}
	return end
}

// graceExit waits up to Grace for the backend to exit on the EOF of its
// stdin, which the client loop closed.
func (r *relay) graceExit(ctx context.Context, end *sessionEnd, exited <-chan *os.ProcessState) {
	r.log.printf("client disconnected; closed backend stdin, waiting up to %s for it to exit", r.o.Grace)
	if r.proc.Await(ctx, launch.StopPolicy{Ask: launch.Asked, Grace: r.o.Grace}) {
		end.st, end.reaped = <-exited, true
	} else if ctx.Err() == nil {
		r.log.printf("backend still running after %s; killing its process group", r.o.Grace)
	}
}

// stopBackend kills the backend's process group before and after reaping
// the leader: before, so a leader that ignores its stdin dies; after, for
// children a leader that exited by itself left behind (the group outlives
// its leader). Descendants that left the group (setsid, daemonizing
// double forks) still carry the session mark in their environment.
func (r *relay) stopBackend(end *sessionEnd, exited <-chan *os.ProcessState) {
	pid := r.proc.Pid()
	if !end.reaped {
		if err := r.proc.KillGroup(); err != nil {
			r.log.printf("killing process group %d: %v", pid, err)
			_ = r.proc.Cmd.Process.Kill()
		}
		end.st, end.reaped = <-exited, true
	}
	if err := r.proc.KillGroup(); err != nil {
		r.log.printf("killing process group %d: %v", pid, err)
	}
	n, err := r.proc.KillMarked()
	if n > 0 {
		r.log.printf("killed %d process(es) that had left the backend's process group", n)
	}
	if err != nil {
		r.log.printf("killing the processes that had left the backend's process group: %v", err)
	}
	r.log.printf("backend exited (%s)", end.exitText())
}

// exitText and exitCode say how the backend exited (unknown: -1).
func (end sessionEnd) exitText() string {
	if end.st == nil {
		return "unknown exit status"
	}
	return end.st.String()
}

func (end sessionEnd) exitCode() int {
	if end.st == nil {
		return -1
	}
	return end.st.ExitCode()
}

// drain relays what the backend wrote before it died, so answers it did
// send are not replaced by errors; false if that did not end in time.
func (r *relay) drain(agentDone <-chan struct{}) bool {
	deadline := time.Now().Add(drainTimeout)
	r.proc.Drain(deadline)
	drained := waitUntil(agentDone, deadline)
	r.proc.Stdout.Close()
	r.proc.Stderr.Close()
	return drained
}

// fail ends a session that did not end with the client: every request
// the client still waits for is answered with the reason (once the
// backend's output was relayed), which is logged once and returned.
func (r *relay) fail(ctx context.Context, end sessionEnd, drained bool) error {
	e := r.endError(ctx, end)
	data := map[string]any{"command": r.o.Command, "exitCode": e.ExitCode}
	if tail := r.proc.Tail().String(); tail != "" && end.why == endExit {
		data["stderr"] = tail
	}
	resp := &acp.RequestError{Code: rpcpeer.CodeInternal, Message: e.msg, Data: data}
	pend := r.die(resp)
	if drained {
		for _, p := range pend {
			r.answer(p.ID, resp)
			if p.Method == acp.AgentMethodInitialize {
				r.markInitAnswered()
			}
		}
	}
	if len(pend) > 0 {
		r.log.printf("answered %d pending request(s) with an error", len(pend))
	}
	// Logged here, once: the CLI does not print an *Error again.
	r.log.printf("%s", strings.TrimPrefix(strings.TrimPrefix(e.msg, "actctl proxy: "), "actctl proxy "))
	if e.Kind == ErrStart {
		r.linger(ctx)
	}
	return e
}

// endError is the error Run returns for a session that ended other than
// with its client.
func (r *relay) endError(ctx context.Context, end sessionEnd) *Error {
	e := &Error{Command: r.o.Command, ExitCode: end.exitCode()}
	switch end.why {
	case endCancel:
		e.Kind, e.Err = ErrInterrupted, context.Cause(ctx)
		e.msg = fmt.Sprintf("actctl proxy was interrupted (%v); backend %q stopped", e.Err, r.o.Command)
	case endFatal:
		e.Kind, e.Err = ErrProtocol, end.fatal
		e.msg = fmt.Sprintf("actctl proxy: %v; backend %q stopped", end.fatal, r.o.Command)
	default:
		r.mu.Lock()
		initOK := r.initOK
		r.mu.Unlock()
		e.Err = errors.New(end.exitText())
		if initOK {
			e.Kind = ErrCrash
			e.msg = fmt.Sprintf("backend %q exited unexpectedly (%s)", r.o.Command, end.exitText())
		} else {
			e.Kind = ErrStart
			e.msg = fmt.Sprintf("backend %q exited during start (%s)", r.o.Command, end.exitText()) + launch.InstallHint(r.o.InstallHint)
		}
	}
	return e
}

// linger waits (bounded by InitWait) for the client's initialize so that
// it can be answered with the start error instead of the client seeing a
// bare EOF.
func (r *relay) linger(ctx context.Context) {
	select {
	case <-r.initAnswered:
		return
	case <-r.clientDone:
		return
	default:
	}
	wait := initWait(r.o.InitWait)
	if wait <= 0 {
		return
	}
	r.log.printf("waiting up to %s for the client's initialize, to answer it with this error", wait)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-r.initAnswered:
	case <-r.clientDone:
	case <-ctx.Done():
	case <-t.C:
	}
}

// initWait is the effective wait for a given InitWait option.
func initWait(d time.Duration) time.Duration {
	if d == 0 {
		return DefaultInitWait
	}
	return d
}

func waitUntil(ch <-chan struct{}, deadline time.Time) bool {
	t := time.NewTimer(time.Until(deadline) + 100*time.Millisecond)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// start spawns the backend (see launch.Supervise): its stderr goes to the
// log a line at a time, its tail is kept for the error messages. The error
// is a *launch.StartError.
func (r *relay) start() error {
	p, err := launch.Supervise(launch.Spec{Command: r.o.Command, Args: r.o.Args, Env: r.o.Env, Dir: r.o.ProcessCwd,
		Install: r.o.InstallHint, Stderr: stderrLog{r.log}, TailSize: tailMax})
	if err != nil {
		return err
	}
	r.proc, r.stdinW = p, p.Stdin
	return nil
}

// die marks the backend gone: from now on the client's requests are
// answered with resp (nil: not at all). It returns the requests the
// backend did not answer, in the order they came.
func (r *relay) die(resp *acp.RequestError) []rpcpeer.Entry[struct{}] {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dead, r.deadErr = true, resp
	r.isDead.Store(true)
	return r.pending.Drain()
}

// answer writes a JSON-RPC error response with the client's raw id.
func (r *relay) answer(id []byte, e *acp.RequestError) {
	r.out.writeLine(append(rpcpeer.AppendError(make([]byte, 0, len(id)+128), id, e), '\n'), true)
}

// track records a client request before it is forwarded, or answers it at
// once when there is no backend. It returns whether it answered.
func (r *relay) track(env *lineframe.Envelope) bool {
	r.mu.Lock()
	if r.dead {
		resp := r.deadErr
		r.mu.Unlock()
		if resp != nil {
			r.answer(env.ID, resp)
			if env.MethodIs(acp.AgentMethodInitialize) {
				r.markInitAnswered()
			}
		}
		return true
	}
	r.pending.Add(env.ID, methodName(env), struct{}{})
	r.mu.Unlock()
	return false
}

// methodName is the envelope's method as the pending table keeps it: one
// the relay asks about (the answer to initialize, to session/new; a
// session/prompt's answer ends a turn), without a copy; "" for others.
func methodName(env *lineframe.Envelope) string {
	switch {
	case env.MethodIs(acp.AgentMethodInitialize):
		return acp.AgentMethodInitialize
	case env.MethodIs(acp.AgentMethodSessionNew):
		return acp.AgentMethodSessionNew
	case env.MethodIs(acp.AgentMethodSessionPrompt):
		return acp.AgentMethodSessionPrompt
	}
	return ""
}

// answered removes the client request a backend response answers, and
// returns its method as the pending table keeps it (methodName).
func (r *relay) answered(env *lineframe.Envelope) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pending.Take(env.ID)
	if ok && p.Method == acp.AgentMethodInitialize && !env.IsError {
		r.initOK = true
	}
	return p.Method
}

// isNewSession reports whether id is that of a client's session/new
// waiting for its answer.
func (r *relay) isNewSession(id []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pending.Peek(id)
	return ok && p.Method == acp.AgentMethodSessionNew
}

// testHookStdinClosed, when set by a test, runs right after the backend's
// stdin is closed on the client's EOF: a window in which the backend can
// exit before anything else the client loop does.
var testHookStdinClosed atomic.Pointer[func()]

// clientLoop relays client -> backend. It owns the backend's stdin and
// closes it when the client's input ends.
func (r *relay) clientLoop() {
	lr := newLineReader(r.o.Stdin, r.o.MaxMessageSize)
	in := r.in
	defer func() {
		// The client is marked gone before the backend's stdin closes, so
		// a backend that exits on that EOF is seen as a normal end, not a
		// crash.
		r.setClientGone()
		in.close()
		if r.stdinW != nil {
			r.stdinW.Close()
			if hook := testHookStdinClosed.Load(); hook != nil {
				(*hook)()
			}
		}
	}()
	relay := func(line []byte) {
		if line, ok := r.fromClient(line); ok {
			in.write(line, false)
		}
	}
	if r.o.Hooks != nil { // a cancel must not wait behind a prompt's plugins
		r.readEnded("client", r.o.Hooks.ReadAhead(lr.next, relay, in.flush))
		return
	}
	for {
		if !lr.hasLine() {
			in.flush()
		}
		line, err := lr.next()
		if err != nil {
			r.readEnded("client", err)
			return
		}
		relay(line)
	}
}

// readEnded logs why reading from the client or the backend (from) ended;
// a message over MaxMessageSize ends the session.
func (r *relay) readEnded(from string, err error) {
	switch {
	case errors.Is(err, errTooLong):
		r.log.printf("%s sent a message larger than %d bytes; ending the session", from, r.o.MaxMessageSize)
		r.fatal <- fmt.Errorf("%s sent a message larger than %d bytes", from, r.o.MaxMessageSize)
	case err != io.EOF && !errors.Is(err, os.ErrDeadlineExceeded):
		r.log.printf("reading from %s: %v", from, err)
	}
}

// fromClient is what the backend gets of a client's line (ok false:
// nothing): a request is checked against the session cwd rule, given to
// the plugins' Prompt hook and tracked until its answer, or answered by
// the proxy itself; every other line passes as it is.
func (r *relay) fromClient(line []byte) ([]byte, bool) {
	env := lineframe.Parse(line)
	if r.o.Trace != nil {
		r.o.Trace.Line("client"+rpcpeer.ToAgent, line, &env)
	}
	switch env.Kind {
	case lineframe.KindNone:
		if lineframe.SkipWS(line, 0) == len(line) {
			return nil, false
		}
		// Lossless for the client too: the backend answers a parse
		// error the way it would without the proxy.
		r.log.printf("warning: client sent a line that is not JSON-RPC; forwarding it unchanged")
	case lineframe.KindRequest:
		if required, ok := rpcpeer.CwdMethod(&env); ok {
			if line, ok = r.sessionCwd(line, &env, required); !ok {
				return nil, false
			}
		}
		var answer []byte
		if line, answer = r.o.Hooks.Inbound(line, &env); answer != nil {
			r.out.writeLine(append(answer, '\n'), true)
			return nil, false
		}
		return line, !r.track(&env)
	}
	return line, true
}

// sessionCwd applies the session cwd rule (rpcpeer.ReadCwd) to a request
// that carries one, and the archetype's sessionCwd policy: only the bytes
// of the cwd value change. A request that breaks the rule is answered
// with -32602 and not forwarded.
func (r *relay) sessionCwd(line []byte, env *lineframe.Envelope, required bool) ([]byte, bool) {
	method, _ := lineframe.Unquote(env.Method)
	c, problem := rpcpeer.ReadCwd(line, env, required)
	if problem != "" {
		r.log.printf("rejected %s: %s", method, problem)
		r.answer(env.ID, rpcpeer.InvalidParams(string(method), problem))
		return nil, false
	}
	if c.Path == "" {
		return line, true // an optional filter left out: nothing to do
	}
	if r.o.OnSession != nil {
		r.o.OnSession(SessionEvent{Method: string(method), ClientCwd: c.Path, BackendCwd: r.cwdPolicy().Session(c.Path)})
	}
	return r.cwdPolicy().Apply(line, c), true
}

// agentLoop relays backend -> client until the backend's stdout ends.
func (r *relay) agentLoop(done chan<- struct{}) {
	defer close(done)
	defer r.out.flush()
	lr := newLineReader(r.proc.Stdout, r.o.MaxMessageSize)
	for {
		if !lr.hasLine() {
			r.out.flush()
		}
		line, err := lr.next()
		if err != nil {
			r.readEnded("backend", err)
			return
		}
		r.fromBackend(line)
	}
}

// fromBackend relays a line of the backend's: not JSON-RPC, it is
// dropped with a warning; an answer ends its request's wait (or is the
// proxy's own: mode.go), and a session/prompt's passes the plugins'
// TurnEnd hook; a session/update goes through their Update hook.
func (r *relay) fromBackend(line []byte) {
	env := lineframe.Parse(line)
	if r.o.Trace != nil {
		r.o.Trace.Line("agent"+rpcpeer.ToClient, line, &env)
	}
	switch env.Kind {
	case lineframe.KindNone:
		if lineframe.SkipWS(line, 0) != len(line) {
			r.log.noise(line)
		}
		return
	case lineframe.KindResponse:
		if r.modes != nil && r.modes.response(line, &env) {
			return
		}
		r.learnDirectories(line, &env)
		var before [][]byte
		before, line = r.o.Hooks.Ended(line, &env, r.answered(&env))
		for _, l := range before {
			r.out.writeLine(l, false)
		}
	case lineframe.KindRequest, lineframe.KindNotification:
		if lines, hooked := r.o.Hooks.Outbound(line, &env); hooked {
			for _, l := range lines {
				le := lineframe.Parse(l)
				r.toClient(l, &le)
			}
			return
		}
		r.toClient(line, &env)
		return
	}
	r.out.writeLine(line, false)
}

// toClient writes a request or notification of the backend's to the
// client, unless it names a session whose answer to session/new is held
// (mode.go).
func (r *relay) toClient(line []byte, env *lineframe.Envelope) {
	if r.modes != nil && r.modes.holds(line, env) {
		return
	}
	r.out.writeLine(line, false)
}

// cwdPolicy is the session cwd policy in force (see relay.cwd).
func (r *relay) cwdPolicy() rpcpeer.CwdPolicy {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cwd
}

// learnDirectories reads, under sessionCwd "workspace+client", the
// backend's answer to initialize: an agent that takes
// additionalDirectories (agentCapabilities.sessionCapabilities) gets its
// workspace as the session cwd and the client's project among them, so
// that it reads its own instructions and settings there; one that does
// not keeps the client's cwd, which the log says once (docs/runtime.md,
// "An employee reached from an editor").
func (r *relay) learnDirectories(line []byte, env *lineframe.Envelope) {
	if r.o.SessionCwd != schema.CwdWorkspaceClient || env.IsError {
		return
	}
	r.mu.Lock()
	p, ok := r.pending.Peek(env.ID)
	if !ok || p.Method != acp.AgentMethodInitialize {
		r.mu.Unlock()
		return
	}
	caps := lineframe.Member(line, env.Result, "agentCapabilities")
	var dirs []byte
	if sc := member(caps, "sessionCapabilities"); sc != nil {
		dirs = member(sc, "additionalDirectories")
	}
	takes := dirs != nil && string(dirs) != "null"
	if takes {
		r.cwd = rpcpeer.CwdPolicy{Workspace: r.o.Workspace, AddClient: true}
	}
	r.mu.Unlock()
	if !takes {
		r.log.printf("note: %s", rpcpeer.NoDirectoriesNote)
	}
}

// member is the value of key in the JSON object obj (nil: none).
func member(obj []byte, key string) []byte {
	if len(obj) == 0 {
		return nil
	}
	return lineframe.Member(obj, lineframe.Span{Start: 0, End: len(obj)}, key)
}
