package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// RelayHello is the relay's first line to its client: it reached up, or
// why not (NoUp: no up runs in the workspace, as Dial's ErrNoUp).
type RelayHello struct {
	Relay string `json:"relay"`
	NoUp  bool   `json:"noUp,omitempty"`
	Error string `json:"error,omitempty"`
}

// relayName marks a RelayHello: anything else on the first line is not
// a relay talking.
const relayName = "actctl-control"

// maxGreeting bounds the RelayHello line a client reads.
const maxGreeting = 64 << 10

// Relay joins in and out to the control socket of the workspace at root,
// with Dial's checks of the run directory (`actctl control-relay`, run by
// kubectl exec in a pod: docs/runtime.md, "Remote control"). It first
// writes a RelayHello line, then copies bytes both ways with fixed
// buffers until either side closes, and closes the socket: up takes that
// as its client gone. It returns Dial's error when there is no up.
func Relay(root string, in io.Reader, out io.Writer) error {
	cl, err := Dial(root)
	if err != nil {
		h := RelayHello{Relay: relayName, NoUp: errors.Is(err, ErrNoUp), Error: err.Error()}
		_ = writeHello(out, h)
		return err
	}
	defer cl.conn.Close()
	if err := writeHello(out, RelayHello{Relay: relayName}); err != nil {
		return err
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(cl.conn, in); done <- struct{}{} }()
	go func() { _, _ = io.Copy(out, cl.conn); done <- struct{}{} }()
	<-done
	return nil
}

func writeHello(out io.Writer, h RelayHello) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if _, err := out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("control relay: write: %w", err)
	}
	return nil
}
