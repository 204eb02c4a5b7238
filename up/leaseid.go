package up

import (
	"fmt"
	"os"
	"strings"
)

// LeaseClientVar, in the environment of `proxy --lease`, names its client
// identity (docs/runtime.md, "Session leases").
const LeaseClientVar = "ACTCTL_LEASE_CLIENT"

// LeaseClient is the client identity `proxy --lease` presents to up: its
// user and LeaseClientVar if set, else its parent process (the editor
// that started it). parseLeaseClient reads it back.
func LeaseClient() string {
	if v := os.Getenv(LeaseClientVar); v != "" {
		return fmt.Sprintf("uid %d name %s", os.Getuid(), v)
	}
	return fmt.Sprintf("uid %d parent %d", os.Getuid(), os.Getppid())
}

// leaseID is a lease client's identity (docs/runtime.md, "Session
// leases"): the user it runs as, the name it declares (LeaseClientVar,
// "" when it declares none) and, without a name, its parent process.
type leaseID struct {
	user   string // "peer uid N" (the kernel's word, Linux) or the claimed "uid N"
	name   string
	parent string
}

// newLeaseID reads the identity a proxy presents (LeaseClient's form);
// the socket peer's uid, when known, is the user whatever the claim says.
func newLeaseID(claim string, peerUID int, peerKnown bool) leaseID {
	var id leaseID
	rest := claim
	if strings.HasPrefix(claim, "uid ") {
		uid, after, _ := strings.Cut(claim[len("uid "):], " ")
		id.user, rest = "uid "+uid, after
	}
	if peerKnown {
		id.user = fmt.Sprintf("peer uid %d", peerUID)
	}
	switch {
	case strings.HasPrefix(rest, "name "):
		id.name = strings.TrimPrefix(rest, "name ")
	case strings.HasPrefix(rest, "parent "):
		id.parent = strings.TrimPrefix(rest, "parent ")
	default:
		id.parent = rest
	}
	return id
}

// lists reports whether a client of identity c lists the idle sessions
// of id: the same user, name and parent (one editor's sessions are not
// offered to another's).
func (id leaseID) lists(c leaseID) bool { return id == c }

// resumes reports whether a client of identity c may load or resume an
// idle session of id, whose id it presents: the same user and the same
// declared name. The parent process is not asked: a client such as acpx
// restarts the process that runs the proxy and comes back with the
// session id it saved.
func (id leaseID) resumes(c leaseID) bool { return id.user == c.user && id.name == c.name }
