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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/layout"
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
	if o.Command == "" {
		return errors.New("proxy: no backend command")
	}
	if o.Stdin == nil || o.Stdout == nil {
		return errors.New("proxy: Stdin and Stdout are required")
	}
	switch o.SessionCwd {
	case "", schema.CwdClient:
		o.SessionCwd = schema.CwdClient
	case schema.CwdWorkspace:
		if !filepath.IsAbs(o.Workspace) {
			return fmt.Errorf("proxy: sessionCwd %q needs an absolute workspace directory, got %q", o.SessionCwd, o.Workspace)
		}
	default:
		return fmt.Errorf("proxy: unknown sessionCwd %q (want %q or %q)", o.SessionCwd, schema.CwdClient, schema.CwdWorkspace)
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
	logs := o.Log
	if o.LogFile != "" {
		if err := layout.NoLinksIn(o.LogFile); err != nil {
			return fmt.Errorf("proxy: log file: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(o.LogFile), 0o755); err != nil {
			return fmt.Errorf("proxy: log file: %w", err)
		}
		// Never through a link (a checkout may bring one).
		f, err := os.OpenFile(o.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND|layout.NoFollow, 0o644)
		if err != nil {
			return fmt.Errorf("proxy: log file: %w", err)
		}
		defer f.Close()
		if logs != nil {
			logs = io.MultiWriter(logs, f)
		} else {
			logs = f
		}
	}
	r := &relay{
		o:            o,
		log:          &logger{stderr: o.Stderr, file: logs, now: time.Now},
		pending:      make(map[string]*pendingReq),
		clientDone:   make(chan struct{}),
		initAnswered: make(chan struct{}),
		fatal:        make(chan error, 2),
	}
	r.out = newLockedWriter(o.Stdout, func(err error) { r.setClientGone() })
	if o.SessionCwd == schema.CwdWorkspace {
		r.wsJSON = jsonString(o.Workspace)
	}
	defer r.out.close()
	return r.run(ctx)
}

type pendingReq struct {
	id   []byte // raw id as the client sent it
	seq  uint64 // arrival order, to answer in order
	n    int    // extra requests in flight under the same id
	init bool   // an initialize request
	new  bool   // a session/new request
}

type relay struct {
	o      Options
	log    *logger
	out    *lockedWriter
	wsJSON []byte // Workspace as a JSON string token

	proc   *launch.Proc
	stdinW *os.File   // backend stdin; closed by clientLoop
	in     *backendIn // what is written to stdinW
	modes  *modeSetter

	mu       sync.Mutex
	pending  map[string]*pendingReq
	seq      uint64
	dead     bool              // no backend to forward to: answer requests directly
	deadErr  *acp.RequestError // the answer
	initOK   bool              // the backend answered initialize successfully
	isDead   atomic.Bool
	initOnce sync.Once

	clientDone   chan struct{} // client EOF, read error, or write failure
	clientOnce   sync.Once
	initAnswered chan struct{} // the proxy answered an initialize with deadErr
	fatal        chan error    // a message too large, from either side
}

func (r *relay) setClientGone() {
	r.clientOnce.Do(func() { close(r.clientDone) })
}

func (r *relay) markInitAnswered() {
	r.initOnce.Do(func() { close(r.initAnswered) })
}

func (r *relay) run(ctx context.Context) error {
	o := r.o
	err := r.start()
	r.in = newBackendIn(r)
	if o.Mode != "" {
		r.modes = newModeSetter(r, o.Mode)
	}
	if err != nil {
		msg := err.Error() // a launch.StartError
		r.log.printf("%s", msg)
		r.die(&acp.RequestError{Code: -32603, Message: msg, Data: map[string]any{"command": o.Command}})
		go r.clientLoop()
		r.linger(ctx)
		return &Error{Kind: ErrStart, Command: o.Command, ExitCode: -1, Err: errors.Unwrap(err), msg: msg}
	}
	pid := r.proc.Pid()
	r.log.printf("started backend %q (pid %d, cwd %s, sessionCwd %s)", o.Command, pid, r.proc.Cmd.Dir, o.SessionCwd)
	if o.OnStart != nil {
		o.OnStart(pid)
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
	agentDone := make(chan struct{})
	go r.agentLoop(agentDone)
	go r.clientLoop()

	const (
		endClient = iota
		endCancel
		endExit
		endFatal
	)
	var (
		end     int
		st      *os.ProcessState
		gotExit bool
		fatal   error
	)
	select {
	case <-ctx.Done():
		end = endCancel
	case fatal = <-r.fatal:
		end = endFatal
	case st = <-exited:
		end, gotExit = endExit, true
		select {
		case <-r.clientDone:
			// Both were ready: the client left first and the backend
			// exited on the EOF it was given.
			end = endClient
		default:
		}
	case <-r.clientDone:
		end = endClient
		select {
		case fatal = <-r.fatal:
			// The client loop ends after reporting an oversized message;
			// that is a protocol failure, not a disconnect.
			end = endFatal
		default:
		}
		if end == endClient && o.Grace > 0 {
			r.log.printf("client disconnected; closed backend stdin, waiting up to %s for it to exit", o.Grace)
			// The client loop closed stdin: the backend was asked.
			if r.proc.Await(ctx, launch.StopPolicy{Ask: launch.Asked, Grace: o.Grace}) {
				st, gotExit = <-exited, true
			} else if ctx.Err() == nil {
				r.log.printf("backend still running after %s; killing its process group", o.Grace)
			}
		}
	}
	if end == endCancel {
		r.log.printf("interrupted (%v); killing backend process group %d", context.Cause(ctx), pid)
	}
	// Kill the group before and after reaping the leader: before, so a
	// leader that ignores its stdin dies; after, for children a leader that
	// exited by itself left behind (the group outlives its leader).
	if !gotExit {
		if err := r.proc.KillGroup(); err != nil {
			r.log.printf("killing process group %d: %v", pid, err)
			_ = r.proc.Cmd.Process.Kill()
		}
		st = <-exited
	}
	if err := r.proc.KillGroup(); err != nil {
		r.log.printf("killing process group %d: %v", pid, err)
	}
	// Descendants that left the group (setsid, daemonizing double forks)
	// still carry the session mark in their environment.
	n, err := r.proc.KillMarked()
	if n > 0 {
		r.log.printf("killed %d process(es) that had left the backend's process group", n)
	}
	if err != nil {
		r.log.printf("killing the processes that had left the backend's process group: %v", err)
	}
	exitCode, exitText := -1, "unknown exit status"
	if st != nil {
		exitCode, exitText = st.ExitCode(), st.String()
	}
	r.log.printf("backend exited (%s)", exitText)

	// Relay what the backend wrote before it died, so answers it did send
	// are not replaced by errors.
	deadline := time.Now().Add(drainTimeout)
	r.proc.Drain(deadline)
	drained := waitUntil(agentDone, deadline)
	r.proc.Stdout.Close()
	r.proc.Stderr.Close()

	if end == endClient {
		r.die(nil)
		return nil
	}

	var (
		kind ErrorKind
		msg  string
		data = map[string]any{"command": o.Command, "exitCode": exitCode}
		cerr error
	)
	r.mu.Lock()
	initOK := r.initOK
	r.mu.Unlock()
	switch end {
	case endCancel:
		kind, cerr = ErrInterrupted, context.Cause(ctx)
		msg = fmt.Sprintf("actctl proxy was interrupted (%v); backend %q stopped", cerr, o.Command)
	case endFatal:
		kind, cerr = ErrProtocol, fatal
		msg = fmt.Sprintf("actctl proxy: %v; backend %q stopped", fatal, o.Command)
	default:
		if tail := r.proc.Tail().String(); tail != "" {
			data["stderr"] = tail
		}
		if initOK {
			kind = ErrCrash
			msg = fmt.Sprintf("backend %q exited unexpectedly (%s)", o.Command, exitText)
		} else {
			kind = ErrStart
			msg = fmt.Sprintf("backend %q exited during start (%s)", o.Command, exitText) + launch.InstallHint(o.InstallHint)
		}
		cerr = errors.New(exitText)
	}
	resp := &acp.RequestError{Code: -32603, Message: msg, Data: data}
	pend := r.die(resp)
	if drained {
		for _, p := range pend {
			for i := 0; i <= p.n; i++ {
				r.answer(p.id, resp)
			}
			if p.init {
				r.markInitAnswered()
			}
		}
	}
	if len(pend) > 0 {
		r.log.printf("answered %d pending request(s) with an error", len(pend))
	}
	// Logged here, once: the CLI does not print an *Error again.
	r.log.printf("%s", strings.TrimPrefix(strings.TrimPrefix(msg, "actctl proxy: "), "actctl proxy "))
	if kind == ErrStart {
		r.linger(ctx)
	}
	return &Error{Kind: kind, Command: o.Command, ExitCode: exitCode, Err: cerr, msg: msg}
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

func (r *relay) die(resp *acp.RequestError) []*pendingReq {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dead, r.deadErr = true, resp
	r.isDead.Store(true)
	pend := make([]*pendingReq, 0, len(r.pending))
	for _, p := range r.pending {
		pend = append(pend, p)
	}
	clear(r.pending)
	sort.Slice(pend, func(i, j int) bool { return pend[i].seq < pend[j].seq })
	return pend
}

// answer writes a JSON-RPC error response with the client's raw id.
func (r *relay) answer(id []byte, e *acp.RequestError) {
	body, err := json.Marshal(e)
	if err != nil {
		body, _ = json.Marshal(acp.NewInternalError(nil))
	}
	line := make([]byte, 0, len(id)+len(body)+40)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"error":`...)
	line = append(line, body...)
	line = append(line, "}\n"...)
	r.out.writeLine(line, true)
}

// track records a client request before it is forwarded, or answers it at
// once when there is no backend. It returns whether it answered.
func (r *relay) track(env *envelope) bool {
	var kb [64]byte
	key, ok := appendIDKey(kb[:0], env.id)
	r.mu.Lock()
	if r.dead {
		resp := r.deadErr
		r.mu.Unlock()
		if resp != nil {
			r.answer(env.id, resp)
			if env.methodIs(acp.AgentMethodInitialize) {
				r.markInitAnswered()
			}
		}
		return true
	}
	if ok {
		if p := r.pending[string(key)]; p != nil {
			p.n++
		} else {
			r.seq++
			r.pending[string(key)] = &pendingReq{
				id:   append([]byte(nil), env.id...),
				seq:  r.seq,
				init: env.methodIs(acp.AgentMethodInitialize),
				new:  env.methodIs(acp.AgentMethodSessionNew),
			}
		}
	}
	r.mu.Unlock()
	return false
}

// answered removes the client request a backend response answers.
func (r *relay) answered(env *envelope) {
	var kb [64]byte
	key, ok := appendIDKey(kb[:0], env.id)
	if !ok {
		return
	}
	r.mu.Lock()
	if p := r.pending[string(key)]; p != nil {
		if p.n > 0 {
			p.n--
		} else {
			delete(r.pending, string(key))
		}
		if p.init && !env.isError {
			r.initOK = true
		}
	}
	r.mu.Unlock()
}

// isNewSession reports whether id is that of a client's session/new
// waiting for its answer.
func (r *relay) isNewSession(id []byte) bool {
	var kb [64]byte
	key, ok := appendIDKey(kb[:0], id)
	if !ok {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending[string(key)]
	return p != nil && p.new
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
	for {
		if !lr.hasLine() {
			in.flush()
		}
		line, err := lr.next()
		if err != nil {
			switch {
			case errors.Is(err, errTooLong):
				r.log.printf("client sent a message larger than %d bytes; ending the session", r.o.MaxMessageSize)
				r.fatal <- fmt.Errorf("client sent a message larger than %d bytes", r.o.MaxMessageSize)
			case err != io.EOF:
				r.log.printf("reading from client: %v", err)
			}
			return
		}
		env := parseEnvelope(line)
		switch env.kind {
		case kindNone:
			if skipWS(line, 0) == len(line) {
				continue
			}
			// Lossless for the client too: the backend answers a parse
			// error the way it would without the proxy.
			r.log.printf("warning: client sent a line that is not JSON-RPC; forwarding it unchanged")
		case kindRequest:
			if need, ok := cwdMethod(&env); ok {
				if line, ok = r.sessionCwd(line, &env, need); !ok {
					continue
				}
			}
			if r.track(&env) {
				continue
			}
		}
		in.write(line, false)
	}
}

// cwdMethod reports whether a request carries a session cwd the proxy
// must check (and, under sessionCwd "workspace", rewrite), and whether that
// cwd is required. session/new, load and resume and the unstable
// session/fork require one; session/list takes an optional cwd filter,
// rewritten too so that a client listing its project's sessions finds the
// ones the backend ran in the workspace.
func cwdMethod(env *envelope) (required, ok bool) {
	switch {
	case env.methodIs(acp.AgentMethodSessionNew), env.methodIs(acp.AgentMethodSessionLoad),
		env.methodIs(acp.AgentMethodSessionResume), env.methodIs(acp.AgentMethodSessionFork):
		return true, true
	case env.methodIs(acp.AgentMethodSessionList):
		return false, true
	}
	return false, false
}

// sessionCwd checks the cwd of a request named by cwdMethod and, for
// sessionCwd "workspace", replaces its value. Only the bytes of the cwd
// value change. A missing (when required), non-string or relative cwd is
// answered with -32602 and not forwarded (ACP requires an absolute path; a
// backend given a relative one would resolve it against processCwd, a
// directory the client never chose).
func (r *relay) sessionCwd(line []byte, env *envelope, required bool) ([]byte, bool) {
	method := string(env.method[1 : len(env.method)-1])
	var (
		spans     []span
		clientCwd string
		problem   string
	)
	p := env.params
	if p.start == p.end || line[p.start] != '{' {
		if required || p.start != p.end {
			problem = "params must be an object with an absolute cwd"
		}
	} else {
		scanObject(line, p.start, 0, func(key []byte, vs, ve int) {
			if string(key) != "cwd" || problem != "" {
				return
			}
			if !required && string(line[vs:ve]) == "null" {
				return // an optional filter, explicitly absent
			}
			var s string
			if line[vs] != '"' || json.Unmarshal(line[vs:ve], &s) != nil {
				problem = "cwd must be a string holding an absolute path"
				return
			}
			if !filepath.IsAbs(s) {
				problem = fmt.Sprintf("cwd must be an absolute path, got %q", s)
				return
			}
			spans = append(spans, span{vs, ve})
			clientCwd = s
		})
		if problem == "" && len(spans) == 0 && required {
			problem = "cwd is required and must be an absolute path"
		}
	}
	if problem == "" && len(spans) == 0 {
		return line, true // an optional filter left out: nothing to do
	}
	if problem != "" {
		r.log.printf("rejected %s: %s", method, problem)
		e := acp.NewInvalidParams(map[string]any{"method": method, "reason": problem})
		e.Message = "Invalid params: " + problem
		r.answer(env.id, e)
		return nil, false
	}
	backendCwd := clientCwd
	if r.o.SessionCwd == schema.CwdWorkspace {
		out := make([]byte, 0, len(line)+len(r.wsJSON))
		prev := 0
		for _, s := range spans {
			out = append(out, line[prev:s.start]...)
			out = append(out, r.wsJSON...)
			prev = s.end
		}
		line = append(out, line[prev:]...)
		backendCwd = r.o.Workspace
	}
	if r.o.OnSession != nil {
		r.o.OnSession(SessionEvent{Method: method, ClientCwd: clientCwd, BackendCwd: backendCwd})
	}
	return line, true
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
			switch {
			case errors.Is(err, errTooLong):
				r.log.printf("backend sent a message larger than %d bytes; ending the session", r.o.MaxMessageSize)
				r.fatal <- fmt.Errorf("backend sent a message larger than %d bytes", r.o.MaxMessageSize)
			case err != io.EOF && !errors.Is(err, os.ErrDeadlineExceeded):
				r.log.printf("reading from backend: %v", err)
			}
			return
		}
		env := parseEnvelope(line)
		switch env.kind {
		case kindNone:
			if skipWS(line, 0) != len(line) {
				r.log.noise(line)
			}
			continue
		case kindResponse:
			if r.modes != nil && r.modes.response(line, &env) {
				continue
			}
			r.answered(&env)
		case kindRequest, kindNotification:
			if r.modes != nil && r.modes.holds(line, &env) {
				continue
			}
		}
		r.out.writeLine(line, false)
	}
}

// jsonString encodes s as a JSON string token without HTML escaping (a
// path with & or < stays readable in logs and transcripts).
func jsonString(s string) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}
