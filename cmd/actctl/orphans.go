package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/launch"
)

// trackProcesses ends what a killed actctl (up, run, chat, task) left
// behind in the workspace at root, then records every process this one
// starts until the returned stop (docs/runtime.md, "No orphans"). The
// ledgers are kept in the actctl home (control.LedgerDir); one found in
// the workspace is never read, only named. With hooks set, this
// process's children that are no backend (up's hooks) carry a mark of
// their own, and stop ends those still running. Where no ledger can be
// kept (outside Linux) it does nothing.
func trackProcesses(root, home string, hooks bool, logf func(string, ...any)) (stop func(), err error) {
	// What this creates it removes again, when empty: a run leaves
	// nothing behind.
	made := missing(home, filepath.Join(home, layout.Ledgers), control.LedgerDirOf(home, root))
	removeMade := func() {
		for _, d := range made {
			_ = os.Remove(d)
		}
	}
	l, err := openLedger(home, root, logf)
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

// openLedger sweeps the ledger directory of the workspace at root and
// opens this process's ledger there. The directory is made again when
// another actctl, ending, removed it meanwhile.
func openLedger(home, root string, logf func(string, ...any)) (*launch.Ledger, error) {
	for try := 0; ; try++ {
		dir, err := control.LedgerDir(home, root)
		if err != nil {
			return nil, err
		}
		if try == 0 {
			ignoreWorkspaceLedgers(root, dir, logf)
			if n, err := launch.Sweep(dir); err != nil {
				logf("ending what a killed actctl left: %v", err)
			} else if n > 0 {
				logf("ended %d process(es) a killed actctl left running", n)
			}
		}
		l, err := launch.OpenLedger(dir)
		if try == 0 && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return l, err
	}
}

// missing lists those of dirs that do not exist, deepest first.
func missing(dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			out = append([]string{d}, out...)
		}
	}
	return out
}

// ignoreWorkspaceLedgers says once, naming them, that the files in the
// workspace's run directory named like a process ledger are ignored:
// such a file may have come with a clone, and actctl keeps its own in
// dir.
func ignoreWorkspaceLedgers(root, dir string, logf func(string, ...any)) {
	run := layout.Path(root, layout.Run)
	names := launch.StaleLedgers(run)
	if len(names) == 0 {
		return
	}
	for i, n := range names {
		names[i] = termsafe.Line(filepath.Join(run, n))
	}
	logf("ignoring %s: actctl never reads a process ledger in the workspace (one may come with a clone); it keeps its own in %s. Remove it", strings.Join(names, ", "), dir)
}

// trackRun is trackProcesses for `actctl run`, `chat` and `task` (verb):
// a workspace where no ledger can be kept is only warned about.
func trackRun(g *globals, verb string) (stop func()) {
	root, err := upRoot(g)
	if err != nil {
		return func() {} // run says what is wrong with the config
	}
	warn := func(format string, args ...any) { g.Warn(verb+": "+format, args...) }
	home, err := homeDir(g)
	if err != nil {
		warn("%v (processes a killed %s leaves are not ended)", err, verb)
		return func() {}
	}
	stop, err = trackProcesses(root, home, false, warn)
	if err != nil {
		warn("%v (processes a killed %s leaves are not ended)", err, verb)
	}
	return stop
}

// homeDir is the actctl home the command line names.
func homeDir(g *globals) (string, error) {
	opts, err := g.LoadOptions()
	if err != nil {
		return "", err
	}
	return opts.HomeDir()
}
