// Package control is how actctl's commands talk to the workspace's
// `actctl up`, the one long-running process that holds the agents'
// connections: start, stop, restart, prompt, logs -f and status cannot do
// their work themselves, so they ask up over a Unix socket. The package
// owns both ends and the rule of one up per workspace, so that the
// commands (client) and up (server) cannot disagree on a path, a frame
// or a message (docs/runtime.md, "Control socket").
//
// Files, in the workspace's .actant/run/ (mode 0700; it, .actant and
// the files below are checked, never followed: RunDir):
//
//	up.lock  an exclusive lock (internal/lockedfile) held by the running
//	         up, holding its pid so that a second up can name it
//	up.sock  the socket up listens on, mode 0600
//
// Protocol: one request per connection, JSON lines. The client writes one
// Request line:
//
//	{"op":"prompt","agent":"dev","text":"fix the tests","wait":true}
//
// ops: status, start, stop, restart, prompt, logs. The server answers
// with zero or more frames of streamed output, whose kinds and data the
// handler chooses:
//
//	{"kind":"event","data":{...}}
//
// then exactly one final frame, and closes the connection:
//
//	{"done":true,"error":"...","code":3,"result":{...}}
//
// code is the exit status the command should end with: 0 on success, the
// handler error's ExitCode() when it has one, else 1. The client keeps its
// side open until the final frame: the server takes end-of-file from the
// client as the client having gone (Ctrl-C on `actctl logs -f`) and
// cancels the handler.
//
// A workspace's up in a Kubernetes pod is reached the same way through
// `kubectl exec -i POD -- actctl control-relay` (Connect, Relay): the
// relay writes one RelayHello line, then joins its stdio to the socket
// (docs/runtime.md, "Remote control").
package control
