// Package rpcpeer is the JSON-RPC peer kit of actctl's three ACP relays:
// the proxy's (editor to backend), up's session lease (lease clients to a
// warm agent) and the ACP client's reader (acpclient). Each protocol rule
// they share is written here once, on top of internal/lineframe's
// envelope (docs/design.md, "One job per package"):
//
//   - Pending: the requests awaiting their answers, keyed by id in the
//     spelling lineframe.AppendIDKey gives (a peer that re-encodes an id
//     still matches), with their method, in arrival order.
//   - WithID and Forwarder: id rewriting, for a connection that carries
//     several clients' requests to one peer under ids of actctl's own,
//     each answer given back its client's id.
//   - AppendError, AppendResult and the Code constants: the answers actctl
//     writes itself, one byte layout.
//   - CwdMethod, ReadCwd and CwdPolicy: the session cwd rule (which
//     requests carry a cwd, what a valid one is, the archetype's
//     sessionCwd policy), every other byte of the line left as it is.
//   - Hooks: the one interception point of ACP session traffic, for
//     session plugins: a session/prompt request before it reaches the
//     agent, a session/update notification and the answer that ends the
//     turn before they reach the client.
//
// Lines are never decoded whole: what is not rewritten passes byte for
// byte.
package rpcpeer
