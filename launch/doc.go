// Package launch starts an agent's backend and makes sure nothing of it
// outlives its supervisor. It exists once so that every part of actctl that
// runs a backend — the ACP relay (`actctl proxy`), the ACP client (`actctl
// run`, `chat`), `resolve` and `open` — resolves the same command and cwd
// from the config (Resolve) and gets the same process hygiene (Start, Kill):
// an own process group, the Linux parent-death signal, and a per-session
// environment mark that finds descendants which left the group.
//
// Supervise is the one supervised process, used by the ACP client and its
// terminals, the proxy, run hooks and supervise's tests: started in its own group, reaped in
// the background, its group killed once the leader exits, its stderr
// copied a line at a time with its tail kept (Tail), stopped by a
// StopPolicy (stdin EOF or SIGTERM, a grace, then the group and the
// session mark killed), its remaining output drained with a deadline, and
// one start error (StartError) that carries the install hint. ErrorKind
// is why a supervised session ended badly.
package launch
