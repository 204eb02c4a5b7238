package proxy

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
)

// sessionMarkVar is set in the backend's environment to a value unique to
// one proxy session. Every process the backend starts inherits it, including
// those that leave its process group with setsid or a daemonizing double
// fork, which killGroup cannot reach; killMarked finds them by it.
const sessionMarkVar = "ACTCTL_PROXY_SESSION"

func newSessionMark() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}
