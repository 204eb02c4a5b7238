package inputs

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The caches of this package (inputs.rec, config.cache) live in the
// workspace, where an agent working there may write. Each is sealed with
// an HMAC-SHA256 under a key of this user's actctl home (keyFile), which
// no workspace holds, so that an agent that can write files but not read
// the home (the client confines its reads to its roots) cannot make one
// that passes: a file that fails the seal is ignored and rebuilt
// (docs/design.md, "How the caches are protected").

// keyFile is the name of the cache key in the actctl home: keySize random
// bytes, mode 0600.
const (
	keyFile = "cache.key"
	keySize = 32
)

// keys holds the key of each home read or made by this process: it is
// read at most once per process (one file read on the fast path).
var keys struct {
	sync.Mutex
	byHome map[string][]byte
}

// cacheKey returns the key to seal and check the caches of the workspace
// at root with, kept in home; nil and why when there is none to trust
// (then no cache is taken or written). With create, a missing or
// unusable key is made.
func cacheKey(root, home string, create bool) ([]byte, string) {
	if home == "" {
		return nil, "no actctl home"
	}
	p := filepath.Join(home, keyFile)
	if within(root, p) {
		return nil, "the cache key " + p + " would lie inside the workspace, where its agents can read it"
	}
	keys.Lock()
	defer keys.Unlock()
	if k := keys.byHome[home]; k != nil {
		return k, ""
	}
	k, err := readKey(p)
	if err != nil && create {
		k, err = makeKey(home, p)
	}
	if err != nil {
		return nil, "no usable cache key in the actctl home " + home + ": " + err.Error()
	}
	if keys.byHome == nil {
		keys.byHome = map[string][]byte{}
	}
	keys.byHome[home] = k
	return k, ""
}

// within reports whether p lies in dir (both clean absolute paths).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// readKey reads the key at p: a regular file of keySize bytes that only
// its owner, this user, may read or write.
func readKey(p string) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: mode %v: others may read or write it", p, fi.Mode().Perm())
	}
	if !ownedByMe(fi) {
		return nil, fmt.Errorf("%s: owned by another user", p)
	}
	var b [keySize + 1]byte
	n, err := io.ReadFull(f, b[:])
	if n != keySize || !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: not a key of %d bytes", p, keySize)
	}
	return b[:keySize], nil
}

// makeKey creates the key p in home: written whole to a temporary file of
// mode 0600 and synced, then linked into place, so that no reader ever
// sees part of a key and of two processes making one at once, both use
// the first (the second reads it). A key that exists but cannot be used
// (damaged, open to others) is replaced: the caches it sealed are
// ignored and rebuilt.
func makeKey(home, p string) ([]byte, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	k := make([]byte, keySize)
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
