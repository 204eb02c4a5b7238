package launch

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
)

// MarkVar is set in the backend's environment to a value unique to
// one supervised session (a proxy or run session). Every process the backend starts inherits it, including
// those that leave its process group with setsid or a daemonizing double
// fork, which KillGroup cannot reach; KillMarked finds them by it.
const MarkVar = "ACTCTL_PROXY_SESSION"

// NewMark returns a fresh session mark: this process's pid, a dash and
// markHex random hex digits.
func NewMark() string {
	var b [markHex / 2]byte
	_, _ = rand.Read(b[:])
	return strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}

// markHex is how many hex digits follow the pid in a mark.
const markHex = 24

// validMark reports whether m has the shape NewMark gives a mark, so that
// no ledger line can name an empty or partial one.
func validMark(m string) bool {
	pid, h, ok := strings.Cut(m, "-")
	if !ok || len(h) != markHex || strings.ToLower(h) != h {
		return false
	}
	if n, err := strconv.Atoi(pid); err != nil || n <= 0 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
