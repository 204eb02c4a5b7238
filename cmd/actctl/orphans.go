package main

import (
	"errors"
	"io/fs"
	"os"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/launch"
)

// trackProcesses ends what a killed actctl (up or run) left behind in the
// workspace at root, then records every process this one starts until
// the returned stop (docs/runtime.md, "No orphans"). With hooks set, this
// process's children that are no backend (up's hooks) carry a mark of
// their own, and stop ends those still running. Where no ledger can be
// kept (outside Linux) it does nothing.
func trackProcesses(root string, hooks bool, logf func(string, ...any)) (stop func(), err error) {
	// What this creates it removes again, when empty: a run leaves
	// nothing behind.
	var made []string
	for _, d := range []string{layout.Path(root), layout.Path(root, layout.Run)} {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			made = append([]string{d}, made...)
		}
	}
	removeMade := func() {
		for _, d := range made {
			_ = os.Remove(d)
		}
	}
	dir, err := control.RunDir(root, true)
	if err != nil {
		return func() {}, err
	}
	if n, err := launch.Sweep(dir); err != nil {
		logf("ending what a killed actctl left: %v", err)
	} else if n > 0 {
		logf("ended %d process(es) a killed actctl left running", n)
	}
	l, err := launch.OpenLedger(dir)
	if errors.Is(err, errors.ErrUnsupported) {
		return removeMade, nil
	} else if err != nil {
		return removeMade, err
	}
	launch.Track(l)
	mark := ""
	if hooks {
		mark = launch.NewMark()
		l.AddMark(mark)
		os.Setenv(launch.MarkVar, mark) // inherited by hooks (and theirs)
	}
	return func() {
		launch.Track(nil)
		if mark != "" {
			if _, err := launch.KillMarked(mark); err != nil {
				logf("%v", err)
			}
		}
		if err := l.Close(); err != nil {
			logf("%v", err)
		}
		removeMade()
	}, nil
}

// trackRun is trackProcesses for `actctl run` and `chat` (verb): a
// workspace where no ledger can be kept is only warned about.
func trackRun(g *globals, verb string) (stop func()) {
	root, err := upRoot(g)
	if err != nil {
		return func() {} // run says what is wrong with the config
	}
	warn := func(format string, args ...any) { g.Warn(verb+": "+format, args...) }
	stop, err = trackProcesses(root, false, warn)
	if err != nil {
		warn("%v (processes a killed %s leaves are not ended)", err, verb)
	}
	return stop
}
