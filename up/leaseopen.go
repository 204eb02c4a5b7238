package up

import (
	"fmt"
	"io"
	"os"

	"github.com/actctl/actctl/control"
)

// OpenLease asks the up behind cl for a session lease on agent's warm
// process (docs/runtime.md, "Session leases"), presenting the client
// identity client (LeaseClient, ChatClient): the stream is then ACP to
// the agent, its sessions sessions on the warm process. up's refusal (no
// such agent, not running) is the error. Both `proxy --lease` and `chat`
// open their leases here.
func OpenLease(cl *control.Client, agent, client string) (io.ReadWriteCloser, error) {
	return cl.Upgrade(control.Request{Op: control.OpLease, Agent: agent, Client: client})
}

// ChatClient is the client identity `actctl chat` presents to up: its
// user and the name LeaseClientVar gives, else "chat", so that the user's
// chat sessions are listed and resumed from any shell (`chat --list`,
// `chat --resume`), and by no other user.
func ChatClient() string {
	name := os.Getenv(LeaseClientVar)
	if name == "" {
		name = "chat"
	}
	return fmt.Sprintf("uid %d name %s", os.Getuid(), name)
}
