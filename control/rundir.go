package control

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/actctl/actctl/internal/layout"
)

// The run directory's trust rule (docs/runtime.md, "Control socket"):
// .actant and .actant/run are directories of the current user, neither a
// symbolic link nor writable by others nor by a group the user is not in
// (run is 0700 when actctl makes it), and so is every entry of run actctl
// uses (up.lock, up.sock, the agents' task locks). Then nobody else can
// swap any of them for a link or put their own in its place between a
// check and its use; nothing there is ever followed. Group bits of one of
// the user's own groups are accepted: a Kubernetes volume's fsGroup gives
// every file on it group read and write (closedBits). The process ledgers
// follow the same rule in the actctl home (LedgerDir).

// RunDir is the workspace's checked run directory, .actant/run: created
// (0700, .actant too when missing) and made private when create is set
// (up, run), only checked otherwise. A missing directory, when create is
// not set, is fs.ErrNotExist; a symbolic link, another owner or an open
// mode is refused with an error that says which path and what to do.
func RunDir(root string, create bool) (string, error) {
	if create {
		// The workspace root is the user's: a link there is theirs.
		if err := os.MkdirAll(root, 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", root, err)
		}
	}
	dot := layout.Path(root)
	if err := checkedDir(dot, create, 0o022); err != nil {
		return "", err
	}
	dir := layout.Path(root, layout.Run)
	if err := checkedDir(dir, create, 0o077); err != nil {
		return "", err
	}
	return dir, nil
}

// checkedDir checks dir (see RunDir) with the permission bits open
// that are refused; create makes it when missing and clears those bits
// of a directory of ours.
func checkedDir(dir string, create bool, open fs.FileMode) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err = os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return layout.NotDir(filepath.Dir(dir), fmt.Errorf("create %s: %w", dir, err))
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return layout.NotDir(dir, err)
	}
	uid := os.Getuid()
	if why := notOurs(fi, uid, 0); why != "" {
		return untrusted(dir, why)
	}
	if !fi.IsDir() {
		if !create { // the client: no up could be running there
			return &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOTDIR}
		}
		return layout.NotDir(dir, untrusted(dir, "it is not a directory"))
	}
	if create && fi.Mode().Perm()&open != 0 {
		// Ours and no link: tightening it is safe, and what lets a
		// umask of 002 keep working (and a volume's fsGroup walk).
		if err := os.Chmod(dir, fi.Mode().Perm()&^open); err != nil {
			return fmt.Errorf("chmod %s: %w", dir, err)
		}
		return nil
	}
	if why := notOurs(fi, uid, open); why != "" {
		return untrusted(dir, why)
	}
	return nil
}

// LedgerDir is the directory of the process ledgers (launch.Ledger) of
// the actctl processes running in the workspace at root:
// $ACTANT_HOME/procs/<key>, key the first 16 hex digits of the sha256 of
// root as it resolves. It lies in the actctl home, never in the
// workspace, where a clone or an agent could put a ledger. Both
// directories are created (0700) and checked as the run directory is:
// the user's, no link, nobody else may write.
func LedgerDir(home, root string) (string, error) {
	if home == "" {
		return "", errors.New("no actctl home to keep the process ledgers in")
	}
	// The home is the user's (as the workspace root is): a link there is
	// theirs.
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", home, err)
	}
	dir := LedgerDirOf(home, root)
	if err := checkedDir(filepath.Dir(dir), true, 0o022); err != nil {
		return "", err
	}
	if err := checkedDir(dir, true, 0o077); err != nil {
		return "", err
	}
	return dir, nil
}

// LedgerDirOf is the path of LedgerDir, neither made nor checked.
func LedgerDirOf(home, root string) string {
	return filepath.Join(home, layout.Ledgers, rootKey(root))
}

// checkEntry refuses an entry of the run directory (the lock, the
// socket) that is a symbolic link, another user's, or has permission
// bits of open; fs.ErrNotExist when it is missing. (The socket's mode is
// not checked: its directory keeps others out, and it is chmod-ed only
// after it was bound.)
func checkEntry(path string, open fs.FileMode) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if why := notOurs(fi, os.Getuid(), open); why != "" {
		return untrusted(path, why)
	}
	return nil
}

// openLock opens (creating) the lock file at path without following a
// link, and refuses one that is not a regular file of ours.
func openLock(path string) (*os.File, error) {
	if err := checkEntry(path, 0o022); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = untrusted(path, "it is not a regular file")
	} else if err == nil {
		if why := notOurs(fi, os.Getuid(), 0o022); why != "" {
			err = untrusted(path, why)
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func untrusted(path, why string) error {
	return fmt.Errorf("refusing %s: %s; actctl keeps its locks, control socket or process ledgers there and follows no link in it: it must be a directory (or file) of yours that nobody else can write: remove it (or fix its mode) and try again", path, why)
}
