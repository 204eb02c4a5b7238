package control

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/lockedfile"
)

// LockPath is the lock file the workspace's actctl up holds.
func LockPath(root string) string { return layout.Path(root, layout.Run, layout.UpLock) }

// RunningError says that another actctl up holds the workspace. Pid is 0
// when its pid could not be read (it is still writing it, or the system
// keeps a locked file unreadable, as Windows does).
type RunningError struct{ Pid int }

func (e *RunningError) Error() string {
	if e.Pid == 0 {
		return "actctl up is already running for this workspace"
	}
	return fmt.Sprintf("actctl up is already running for this workspace (pid %d)", e.Pid)
}

// Owner is the workspace's running actctl up: it holds up.lock until
// Close.
type Owner struct {
	root string
	lock *os.File
	ln   net.Listener
	sock string // the socket path Listen listened on
}

// Acquire makes this process the workspace's actctl up: it creates
// .actant/run/ (0700; see RunDir for what is refused there), locks
// up.lock and writes our pid into it. When another process (or another
// Owner in this one) holds it, it returns a *RunningError naming that
// process and changes nothing.
func Acquire(root string) (*Owner, error) {
	if _, err := RunDir(root, true); err != nil {
		return nil, err
	}
	path := LockPath(root)
	f, err := openLock(path)
	if err != nil {
		return nil, err
	}
	if err := lockedfile.TryLock(f); err != nil {
		f.Close()
		if errors.Is(err, lockedfile.ErrWouldBlock) {
			return nil, &RunningError{Pid: readPid(path)}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	o := &Owner{root: root, lock: f}
	if err := o.claim(); err != nil {
		o.Close()
		return nil, err
	}
	return o, nil
}

// claim records our pid for a second up to name.
func (o *Owner) claim() error {
	if err := o.lock.Truncate(0); err != nil {
		return fmt.Errorf("write pid to %s: %w", o.lock.Name(), err)
	}
	if _, err := o.lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		return fmt.Errorf("write pid to %s: %w", o.lock.Name(), err)
	}
	return nil
}

// HolderPid is the pid the workspace's running actctl up wrote into
// up.lock; 0 when there is none.
func HolderPid(root string) int { return readPid(LockPath(root)) }

// readPid reads the pid in a lock file; 0 when there is none.
func readPid(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Listen listens on the workspace's control socket (SocketPath), mode
// 0600. A socket file already there is stale (its up died without
// removing it: we hold the lock) and is replaced. The socket is created
// inside a 0700 directory (the run directory, or the fallback one, checked
// to be ours), so nobody else can connect before the chmod.
func (o *Owner) Listen() (net.Listener, error) {
	if o.ln != nil {
		return nil, errors.New("control: Listen called twice")
	}
	path := SocketPath(o.root)
	if err := checkSocketPath(path, o.root); err != nil {
		return nil, err
	}
	if err := prepareSocketDir(path, o.root); err != nil {
		return nil, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	o.ln, o.sock = ln, path
	return ln, nil
}

// Close closes the listener, removes the socket, clears the pid and
// releases the lock (the lock file stays). It is safe to call twice.
func (o *Owner) Close() error {
	if o == nil || o.lock == nil {
		return nil
	}
	var errs []error
	if o.ln != nil {
		if err := o.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
		if err := os.Remove(o.sock); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", o.sock, err))
		}
		o.ln = nil
	}
	if err := o.lock.Truncate(0); err != nil {
		errs = append(errs, fmt.Errorf("clear pid in %s: %w", o.lock.Name(), err))
	}
	if err := o.lock.Close(); err != nil { // closing drops the lock
		errs = append(errs, err)
	}
	o.lock = nil
	return errors.Join(errs...)
}

// checkSocketPath refuses a socket path longer than the system takes,
// which net would report as a bare "invalid argument". Only a fallback
// path (SocketPath) can be: its directory is then too deep.
func checkSocketPath(path, root string) error {
	if len(path) > maxSocketPath {
		return fmt.Errorf("control socket %s is %d bytes long, more than the %d this system allows for a Unix socket path (the workspace's own, %s, is too long as well); set XDG_RUNTIME_DIR to a shorter directory",
			path, len(path), maxSocketPath, layout.Path(root, layout.Run, layout.UpSocket))
	}
	return nil
}
