package inputs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"

	"github.com/actctl/actctl/internal/atomicfile"
)

// inputs.rec and config.cache are caches checked on every read: each ends
// with its seal, the HMAC-SHA256 of the rest (hex) under this user's
// cache key (see cacheKey), and a file whose seal does not match is
// refused (the normal path runs, and writes it again). The seal catches
// both what a crash leaves and what an agent forged: a plain digest
// anyone can recompute, a seal only who holds the key. So the files are
// written without fsync (docs/design.md, "The apply fast path"): a crash
// leaves such a file absent, old (its stat data or digests no longer
// match) or failing its seal (empty, zero-filled, partial).

// trailerLen is the length of the trailer: a hex HMAC-SHA256.
const trailerLen = 2 * sha256.Size

// beforeRename, when set (by tests), runs right before a cache file is
// renamed into place (atomicfile.Options.Check).
var beforeRename func(target string) error

// writeSealed atomically replaces the cache file p with sealed (see
// seal), without fsync.
func writeSealed(p string, sealed []byte) error {
	return atomicfile.WriteWith(p, sealed, atomicfile.Options{Perm: 0o644, NoSync: true, Check: beforeRename})
}

// seal appends b's seal under key to b.
func seal(key, b []byte) []byte {
	return hex.AppendEncode(b, mac(key, b))
}

// unseal returns b without its seal; ok when the seal is b's under key.
func unseal(key, b []byte) (body []byte, ok bool) {
	if len(b) < trailerLen {
		return nil, false
	}
	body = b[:len(b)-trailerLen]
	var want [trailerLen]byte
	hex.Encode(want[:], mac(key, body))
	return body, hmac.Equal(want[:], b[len(body):])
}

func mac(key, b []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(b)
	return h.Sum(nil)
}
