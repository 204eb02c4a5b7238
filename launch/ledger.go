package launch

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A Ledger records the processes one actctl (up, run, chat, task)
// started, in a file of its workspace's ledger directory under the actctl
// home (control.LedgerDir: never the workspace, where a clone could bring
// one) named after that actctl's pid and start time, so that the next one
// ends what a killed one left behind (docs/runtime.md, "No orphans"): a
// `kill -9` kills the backend (its parent-death signal) but not its
// children. Each line is a backend's "pid start mark" (start: its start
// time since boot, so a reused pid is never taken for it) or "- - mark"
// for a mark alone (the one up sets for its hooks). Sweep reads the
// ledgers whose owner is gone, and signals only what it can prove this
// actctl's kind started (see recordedLeader).
type Ledger struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// ledgerSuffix ends the name of every ledger file.
const ledgerSuffix = ".procs"

// OpenLedger creates this process's ledger in dir (a directory of ours
// that nobody else can write: control.RunDir).
func OpenLedger(dir string) (*Ledger, error) {
	start, err := startTime(os.Getpid())
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, fmt.Sprintf("%d-%d%s", os.Getpid(), start, ledgerSuffix))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND|noFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("process ledger: %w", err)
	}
	return &Ledger{f: f, path: path}, nil
}

// Add records a started process and its session mark.
func (l *Ledger) Add(pid int, mark string) {
	start, err := startTime(pid)
	if err != nil {
		start = 0 // gone already: its mark still finds its children
	}
	l.write(fmt.Sprintf("%d %d %s\n", pid, start, mark))
}

// AddMark records a mark alone.
func (l *Ledger) AddMark(mark string) { l.write("- - " + mark + "\n") }

func (l *Ledger) write(line string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_, _ = l.f.WriteString(line)
	}
}

// Close removes the ledger: whoever closes it has ended what it lists.
func (l *Ledger) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	l.f.Close()
	l.f = nil
	return os.Remove(l.path)
}

// tracked is the ledger Start records every backend in (nil: none).
var tracked atomic.Pointer[Ledger]

// Track makes Start record every process it starts in l (nil: stop).
func Track(l *Ledger) { tracked.Store(l) }

// Sweep ends what the owners of the other ledgers in dir left behind,
// when those owners are gone (their pid is free, or another process with
// a later start time holds it): every process carrying one of their
// marks (KillMarked), and the group of each recorded process proved to be
// the one actctl started (recordedLeader: its start time, its mark, a
// group leader, not pid 1). Those ledgers are then removed. It returns
// how many processes it ended.
func Sweep(dir string) (int, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("sweep %s: %w", dir, err)
	}
	n := 0
	var errs []error
	for _, e := range ents {
		pid, start, ok := ledgerOwner(e.Name())
		if !ok || pid == os.Getpid() || ownerRuns(pid, start) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		k, err := sweepLedger(path)
		n += k
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// ledgerOwner reads a ledger's name: its owner's pid and start time.
func ledgerOwner(name string) (pid int, start uint64, ok bool) {
	base, found := strings.CutSuffix(name, ledgerSuffix)
	p, s, cut := strings.Cut(base, "-")
	if !found || !cut {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(p)
	start, err2 := strconv.ParseUint(s, 10, 64)
	return pid, start, err1 == nil && err2 == nil && pid > 0
}

// StartTime is pid's start time since boot, which with the pid names one
// process and never another that reuses the pid (Linux; elsewhere an
// error wrapping errors.ErrUnsupported).
func StartTime(pid int) (uint64, error) { return startTime(pid) }

// ownerRuns reports whether the process pid that started at start runs.
func ownerRuns(pid int, start uint64) bool {
	now, err := startTime(pid)
	return err == nil && now == start
}

// sweepLedger ends what one ledger lists: a line's group only when its
// leader still is the process the line names and carries the line's mark
// (recordedLeader), and every process carrying a well-formed mark. A line
// of anything else is skipped.
func sweepLedger(path string) (int, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || !ownedByMe(fi) {
		return 0, fmt.Errorf("%s: not a process ledger of yours: left alone", path)
	}
	n := 0
	var errs []error
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || !validMark(fields[2]) {
			continue
		}
		pid, _ := strconv.Atoi(fields[0])
		start, _ := strconv.ParseUint(fields[1], 10, 64)
		if recordedLeader(pid, start, fields[2]) {
			_ = KillGroup(pid) // the same process, a group leader we started
			n++
		}
		k, err := KillMarked(fields[2])
		n += k
		if err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// StaleLedgers lists the files of a workspace's run directory named like
// a process ledger (where actctl kept them before they moved to the
// actctl home). They are never read: such a file may have come with a
// clone, and a ledger is believed only where this user's actctl alone
// writes. dir is not followed when it is a symbolic link.
func StaleLedgers(dir string) []string {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ledgerSuffix) {
			names = append(names, e.Name())
		}
	}
	return names
}
