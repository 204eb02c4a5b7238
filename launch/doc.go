// Package launch starts an agent's backend and makes sure nothing of it
// outlives its supervisor. It exists once so that every part of actctl that
// runs a backend — the ACP relay (`actctl proxy`), the ACP client (`actctl
// run`, `chat`), `resolve` and `open` — resolves the same command and cwd
// from the config (Resolve) and gets the same process hygiene (Start, Kill):
// an own process group, the Linux parent-death signal, and a per-session
// environment mark that finds descendants which left the group.
package launch
