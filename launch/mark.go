package launch

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
)

// MarkVar is set in the backend's environment to a value unique to
// one supervised session (a proxy or run session). Every process the backend starts inherits it, including
// those that leave its process group with setsid or a daemonizing double
// fork, which KillGroup cannot reach; KillMarked finds them by it.
const MarkVar = "ACTCTL_PROXY_SESSION"

func NewMark() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}
