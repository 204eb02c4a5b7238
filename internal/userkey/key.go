// Package userkey is this user's key and the seal made with it: what lets
// actctl tell a file its own process wrote (a cache, a record under
// .actant/) from one that arrived by a clone, a checkout or another
// program (docs/design.md, "What actctl trusts").
//
// The key is File in the actctl home ($ACTANT_HOME): Size random bytes,
// mode 0600, owned by the user, which no workspace holds. A seal is the
// HMAC-SHA256 of a file's content under it: a plain digest anyone can
// recompute, a seal only who holds the key. A file whose seal does not
// match is not trusted.
package userkey

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// File is the name of the key in the actctl home; Size its length.
const (
	File = "cache.key"
	Size = 32
)

// keys holds the key of each home read or made by this process: it is
// read at most once per process (one file read on the fast path).
var keys struct {
	sync.Mutex
	byHome map[string][]byte
}

// Key returns this user's key kept in home. With create, a missing or
// unusable key is made (and the home with it); without, a missing one is
// an error and nothing is written.
func Key(home string, create bool) ([]byte, error) {
	if home == "" {
		return nil, errors.New("no actctl home")
	}
	keys.Lock()
	defer keys.Unlock()
	if k := keys.byHome[home]; k != nil {
		return k, nil
	}
	p := filepath.Join(home, File)
	k, err := readKey(p)
	if err != nil && create {
		k, err = makeKey(home, p)
	}
	if err != nil {
		return nil, err
	}
	if keys.byHome == nil {
		keys.byHome = map[string][]byte{}
	}
	keys.byHome[home] = k
	return k, nil
}

// readKey reads the key at p: a regular file of Size bytes that only its
// owner, this user, may read or write. It is opened non-blocking, so a
// named pipe put in its place cannot hang actctl.
func readKey(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	if !ownedByMe(fi) {
		return nil, fmt.Errorf("%s: owned by another user", p)
	}
	if err := groupOpened(f, p, fi.Mode().Perm(), fi); err != nil {
		return nil, err
	}
	var b [Size + 1]byte
	n, err := io.ReadFull(f, b[:])
	if n != Size || !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: not a key of %d bytes", p, Size)
	}
	return b[:Size], nil
}

// groupOpened refuses a key others may read or write, but keeps one that
// only this process's own group may (and closes it to the group again):
// what a Kubernetes volume's fsGroup walk does to every file at each mount
// (docs/deploy.md, "Kubernetes"), which would otherwise make a new key,
// and so distrust every sealed record, at every start of the pod.
func groupOpened(f *os.File, p string, perm fs.FileMode, fi fs.FileInfo) error {
	if perm&0o007 != 0 || (perm&0o070 != 0 && !inOurGroup(fi)) {
		return fmt.Errorf("%s: mode %v: others may read or write it", p, perm)
	}
	if perm&0o070 != 0 {
		_ = f.Chmod(perm &^ 0o070)
	}
	return nil
}

// makeKey creates the key p in home: written whole to a temporary file of
// mode 0600 and synced, then linked into place, so that no reader ever
// sees part of a key and of two processes making one at once, both use
// the first (the second reads it). A key that exists but cannot be used
// (damaged, open to others) is replaced: what it sealed is no longer
// trusted.
func makeKey(home, p string) ([]byte, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	k := make([]byte, Size)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	tmp, err := writeTemp(home, k)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, p)
	if errors.Is(err, fs.ErrExist) {
		if k2, rerr := readKey(p); rerr == nil {
			return k2, nil
		}
		err = os.Rename(tmp, p)
	}
	if err != nil {
		return nil, err
	}
	return k, nil
}

// writeTemp writes b to a new file of mode 0600 in dir, synced, and
// returns its path.
func writeTemp(dir string, b []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".cache.key-*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
