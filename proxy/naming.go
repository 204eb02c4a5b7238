package proxy

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sync"
)

// The agents proxy creates are named after what they copy, and stay within
// the 63 bytes an agent name may have: a per-project copy of a tool agent
// "<agent>-p<8 hex digits of the project directory's SHA-256>", an
// ephemeral copy of a busy agent "<agent>-eph-<8 random hex digits>".
const (
	projectCopyBase = 52
	ephemeralBase   = 49
)

// ProjectCopyName is the name of agent's copy for the client's project
// projectDir: the same directory always gets the same name.
func ProjectCopyName(agent, projectDir string) string {
	sum := sha256.Sum256([]byte(projectDir))
	return truncate(agent, projectCopyBase) + "-p" + hex.EncodeToString(sum[:])[:8]
}

// projectCopy matches the names ProjectCopyName gives. Compiled on first
// use, not at start-up (every actctl command links this package).
var projectCopy = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+)-p[0-9a-f]{8}$`) })

// ProjectCopyOf is the agent name a per-project copy's name was made from
// ("goex" for "goex-p1a2b3c4d"), "" when name has not that shape.
func ProjectCopyOf(name string) string {
	if m := projectCopy().FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return ""
}

// EphemeralName is a fresh name for an ephemeral copy of agent.
func EphemeralName(agent string) string {
	var id [4]byte
	rand.Read(id[:])
	return truncate(agent, ephemeralBase) + "-eph-" + hex.EncodeToString(id[:])
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
