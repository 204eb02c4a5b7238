package up

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/actctl/actctl/acpclient"
)

// Digest is an agent's restart digest (Spec.Digest), computed from what
// its process is started with, o as acpclient.Start gets it: the
// command, args, environment and cwds, the MCP servers passed in
// session/new, the permission rule, mode and preset; and from extra (the
// schedule, the launch mode, a mark of changed files, the session
// plugins). Whatever of these
// changes restarts the agent, and nothing else does, as Docker Compose
// hashes a service (docs/runtime.md, "actctl up").
func Digest(o acpclient.Options, extra ...any) string {
	l := o.Launch
	l.Install = "" // a hint for error messages, not launched
	h := sha256.New()
	_ = json.NewEncoder(h).Encode([]any{l, o.Env, o.ClientCwd, o.MCPServers, o.Rule, o.Mode, o.Preset, extra})
	return hex.EncodeToString(h.Sum(nil))
}
