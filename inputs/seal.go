package inputs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"

	"github.com/actctl/actctl/internal/atomicfile"
)

// inputs.rec and config.cache are caches checked on every read: each ends
// with the sha256 of the rest (hex), and a file whose trailer does not
// match is refused (the normal path runs, and writes it again). So they
// are written without fsync (docs/design.md, "The apply fast path"): a
// crash leaves such a file absent, old (its stat data or digests no
// longer match) or failing its digest (empty, zero-filled, partial).

// trailerLen is the length of the trailer: a hex sha256.
const trailerLen = 2 * sha256.Size

// beforeRename, when set (by tests), runs right before a cache file is
// renamed into place (atomicfile.Options.Check).
var beforeRename func(target string) error

// writeSealed atomically replaces the cache file p with sealed (see
// seal), without fsync.
func writeSealed(p string, sealed []byte) error {
	return atomicfile.WriteWith(p, sealed, atomicfile.Options{Perm: 0o644, NoSync: true, Check: beforeRename})
}

// seal appends b's trailer to b.
func seal(b []byte) []byte {
	h := sha256.Sum256(b)
	return hex.AppendEncode(b, h[:])
}

// unseal returns b without its trailer; ok when the trailer matches.
func unseal(b []byte) (body []byte, ok bool) {
	if len(b) < trailerLen {
		return nil, false
	}
	body = b[:len(b)-trailerLen]
	h := sha256.Sum256(body)
	var want [trailerLen]byte
	hex.Encode(want[:], h[:])
	return body, bytes.Equal(want[:], b[len(body):])
}
