package control

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/actctl/actctl/internal/layout"
)

// SocketPath is where the control socket of the workspace at root is:
// .actant/run/up.sock, or, when that path is longer than a Unix socket
// path may be, the fallback path (docs/runtime.md, "Control socket"):
// <runtime dir>/actctl-<uid>/<first 16 hex digits of sha256(root)>.sock,
// which up and every client compute alike from the root and the
// environment.
func SocketPath(root string) string {
	p := layout.Path(root, layout.Run, layout.UpSocket)
	if len(p) <= maxSocketPath {
		return p
	}
	return fallbackSocket(root)
}

// fallbackSocket is the socket path of a workspace whose own socket path
// is too long. The root is hashed as it resolves (absolute, symlinks
// followed), so that `-C` through a link finds the same up.
func fallbackSocket(root string) string {
	return filepath.Join(runtimeDir(), userDirName(), rootKey(root)+".sock")
}

// rootKey names the workspace at root outside it: the first 16 hex digits
// of the sha256 of root as it resolves (absolute, symlinks followed).
func rootKey(root string) string {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])[:16]
}

// runtimeDir is where fallback sockets live: $XDG_RUNTIME_DIR when it is
// set to an absolute path (as the XDG spec says), else the temp dir.
func runtimeDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return d
	}
	return os.TempDir()
}

// prepareSocketDir makes sure the directory of the socket path, when it
// is a fallback one, exists and is private to us: created 0700 when
// missing, refused when it is anything else than our own directory with
// no access for others (someone else could then listen in our place).
func prepareSocketDir(path string, root string) error {
	if path == layout.Path(root, layout.Run, layout.UpSocket) {
		return nil // inside .actant/run, which Acquire made private
	}
	dir := filepath.Dir(path)
	if err := os.Mkdir(dir, 0o700); err == nil {
		if err := os.Chmod(dir, 0o700); err != nil { // whatever the umask
			return fmt.Errorf("chmod %s: %w", dir, err)
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create the control socket's directory %s (the workspace path is too long for a socket in .actant/run): %w", dir, err)
	}
	return checkSocketDir(path, root, os.Getuid())
}

// checkSocketDir refuses a fallback socket directory that is not a
// directory of user uid closed to others; fs.ErrNotExist when it is
// missing. Nothing is checked for a socket in .actant/run.
func checkSocketDir(path, root string, uid int) error {
	if path == layout.Path(root, layout.Run, layout.UpSocket) {
		return nil
	}
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if why := notPrivate(fi, uid); why != "" {
		return fmt.Errorf("refusing the control socket directory %s: %s; it must be a directory of yours with mode 0700 (the workspace path is too long for a socket in .actant/run, so actctl uses this one): remove it, or set XDG_RUNTIME_DIR to a private directory", dir, why)
	}
	return nil
}
