package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/actctl/actctl/launch"
)

// A signalPolicy is how one kind of command answers its signals; every
// command takes its signals through onSignals with one of the policies
// below, so that each kind behaves the same way (docs/run.md,
// docs/runtime.md).
type signalPolicy struct {
	// signals are those handled; the others keep their default action.
	signals []os.Signal
	// first, if set, is called with the first signal and gives the cause
	// of the context it cancels; without it, the cause is what
	// signal.NotifyContext gives ("interrupt signal received").
	first func(os.Signal) error
	// again, if set, is called with the second signal; without it later
	// signals are ignored until stop (or, with restore, end actctl).
	again func(os.Signal)
	// restore gives the signals their default action once the first came:
	// the next one ends actctl at once.
	restore bool
}

// cancelPolicy: SIGINT or SIGTERM cancels the command (delete, apply
// --watch, logs -f, a --kube relay), so that a waiting lock or a follow
// gives up; later signals are ignored while it returns.
var cancelPolicy = signalPolicy{signals: []os.Signal{os.Interrupt, syscall.SIGTERM}}

// turnPolicy: SIGINT, SIGTERM or SIGHUP cancels a turn (run, chat, task,
// prompt, start, stop, restart) with the exit status 128+n; the ACP
// client then cancels the session, waits its grace and kills the
// backend's process group (docs/run.md). Later signals are ignored while
// it does.
var turnPolicy = signalPolicy{signals: launch.Signals, first: interruptedTurn}

// relayPolicy: SIGINT, SIGTERM or SIGHUP ends proxy's relay, which then
// stops its backend; later signals are ignored while it does.
var relayPolicy = signalPolicy{signals: launch.Signals}

// servePolicy: SIGINT, SIGTERM or SIGHUP ends the MCP server, which stops
// its running turns; the next signal ends actctl at once.
var servePolicy = signalPolicy{signals: launch.Signals, restore: true}

// safePointPolicy: the first SIGINT or SIGTERM, acknowledged on stderr,
// stops apply or import at its next safe point (before its first write,
// or between writes with its journal in place); a second ends the
// process at once, which is as safe as a kill: every write is atomic and
// the journal lets the next apply finish.
func safePointPolicy(stderr io.Writer) signalPolicy {
	return signalPolicy{
		signals: []os.Signal{os.Interrupt, syscall.SIGTERM},
		first: func(s os.Signal) error {
			fmt.Fprintf(stderr, "actctl: %s received: stopping at the next safe point (send it again to stop at once)\n", signalName(s))
			return signalled{s}
		},
		again: func(s os.Signal) {
			fmt.Fprintf(stderr, "actctl: %s received again: stopping now; the next apply finishes the job\n", signalName(s))
			os.Exit(signalExit(s))
		},
	}
}

// gracefulPolicy: the first SIGINT, SIGTERM or SIGHUP (its terminal
// closed) stops a long-running command (up) gracefully, after stopping is
// called with it; a second forces, calling force once.
func gracefulPolicy(stopping, force func(os.Signal)) signalPolicy {
	return signalPolicy{
		signals: launch.Signals,
		first:   func(s os.Signal) error { stopping(s); return signalled{s} },
		again:   force,
	}
}

// onSignals handles p's signals until stop: ctx is cancelled by the first
// one as p says. cancel ends ctx without a signal and keeps the signals
// handled (a shutdown under way can still be forced); stop ends that.
func onSignals(p signalPolicy) (ctx context.Context, cancel, stop func()) {
	ctx, cancelCause := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, p.signals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancelCause(p.cause(s))
		case <-done:
			return
		}
		if p.restore {
			signal.Stop(ch)
		}
		if p.again == nil {
			return
		}
		select {
		case s := <-ch:
			p.again(s)
		case <-done:
		}
	}()
	return ctx, func() { cancelCause(nil) }, sync.OnceFunc(func() {
		signal.Stop(ch)
		close(done)
		cancelCause(nil)
	})
}

// cause is the cause of the context signal s cancels.
func (p signalPolicy) cause(s os.Signal) error {
	if p.first != nil {
		return p.first(s)
	}
	return errors.New(s.String() + " signal received") // as signal.NotifyContext's
}

// interruptedTurn is the cause of a turn ended by signal s: its exit
// status 128+n.
func interruptedTurn(s os.Signal) error {
	code := exitSIGINT
	if n, ok := s.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	return exitStatus(code, "interrupted ("+s.String()+")")
}

// runContext is a turn's context (turnPolicy), also cancelled with the
// exit status 124 after timeout (none if 0).
func runContext(timeout time.Duration) (context.Context, func()) {
	sigCtx, _, stopSignals := onSignals(turnPolicy)
	ctx, cancel := context.WithCancelCause(sigCtx)
	stopTimer := func() bool { return false }
	if timeout > 0 {
		t := time.AfterFunc(timeout, func() { cancel(exitStatus(exitTimeout, "timed out after "+timeout.String())) })
		stopTimer = t.Stop
	}
	return ctx, func() {
		stopSignals()
		stopTimer()
		cancel(nil)
	}
}

// signalled is the cause of a context cancelled by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "interrupted by " + signalName(s.sig) }

// signalName is the conventional name of sig (SIGINT, SIGTERM).
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// interruptedError gives err, when ctx was cancelled by a signal, the
// signal's exit status (130 for SIGINT) and says it was interrupted.
func interruptedError(ctx context.Context, err error) error {
	s, ok := context.Cause(ctx).(signalled)
	if err == nil || !ok {
		return err
	}
	if !strings.Contains(err.Error(), s.Error()) {
		err = fmt.Errorf("%w (%v)", err, s)
	}
	return withCode(signalExit(s.sig), err)
}

// signalExit is the shell's exit status for a process ended by sig.
func signalExit(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
