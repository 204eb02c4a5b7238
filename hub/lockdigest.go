package hub

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"

	"github.com/actctl/actctl/schema"
)

// LockDigest returns "sha256:<hex>" of the workspace's actant.lock, or ""
// when there is none; apply records it in its state so that a run can tell
// which pinned components it materialized.
func LockDigest(root string) string {
	b, err := schema.ReadRegular(filepath.Join(root, LockFile), 0)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
