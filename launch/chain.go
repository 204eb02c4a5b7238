package launch

import "bytes"

// maxAncestors bounds the walk up the process tree for a chain.
const maxAncestors = 64

// CallerChain is the delegation chain this process runs in (ChainVar):
// the longest value found in the environments of this process and its
// ancestors. actctl sets the variable in the environment of every backend
// it starts, extended by one agent at each hop, so the nearest such
// ancestor holds the longest chain; a backend that starts its MCP servers
// with an environment of its own (Codex passes only the variables a server
// lists), or with a shorter chain, hides nothing: the walk reads the
// backend's own environment (docs/run.md, "Delegation"). Where another
// process's environment cannot be read (outside Linux) it is this
// process's environment alone.
func CallerChain() []string {
	return callerChain(procTree{}, selfPID())
}

// tree is the process table as CallerChain reads it.
type tree interface {
	// parent is the parent pid of pid (0 when it has none or is gone).
	parent(pid int) int
	// env is the NUL-separated environment pid was started with.
	env(pid int) ([]byte, error)
}

// callerChain walks from pid up the tree and returns the longest chain
// found on the way.
func callerChain(t tree, pid int) []string {
	var chain []string
	for i := 0; i < maxAncestors && pid > 1; i++ {
		if env, err := t.env(pid); err == nil {
			if v, ok := envValue(env, ChainVar); ok && len(Chain(v)) > len(chain) {
				chain = Chain(v)
			}
		}
		pid = t.parent(pid)
	}
	return chain
}

// envValue finds name's value in a NUL-separated environment block.
func envValue(env []byte, name string) (string, bool) {
	prefix := []byte(name + "=")
	for _, e := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(e, prefix); ok {
			return string(v), true
		}
	}
	return "", false
}
