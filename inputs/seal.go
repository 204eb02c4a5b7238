package inputs

import (
	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/userkey"
)

// inputs.rec and config.cache are caches checked on every read: each ends
// with its seal, the HMAC-SHA256 of the rest (hex) under this user's
// cache key (see cacheKey, and package internal/userkey), and a file whose seal does not match is
// refused (the normal path runs, and writes it again). The seal catches
// both what a crash leaves and what an agent forged: a plain digest
// anyone can recompute, a seal only who holds the key. So the files are
// written without fsync (docs/design.md, "The apply fast path"): a crash
// leaves such a file absent, old (its stat data or digests no longer
// match) or failing its seal (empty, zero-filled, partial).

// beforeRename, when set (by tests), runs right before a cache file is
// renamed into place (atomicfile.Options.Check).
var beforeRename func(target string) error

// writeSealed atomically replaces the cache file p with sealed (see
// seal), without fsync.
func writeSealed(p string, sealed []byte) error {
	return atomicfile.WriteWith(p, sealed, atomicfile.Options{Perm: 0o644, NoSync: true, Check: beforeRename})
}

// seal appends b's seal under key to b.
func seal(key, b []byte) []byte { return userkey.Seal(key, b) }

// unseal returns b without its seal; ok when the seal is b's under key.
func unseal(key, b []byte) ([]byte, bool) { return userkey.Unseal(key, b) }
