// Package plugin builds and runs the session plugins of an agent
// (docs/plugins.md): from the config's plugins and the agent's list, an
// inbound chain (the prompt's content blocks, in declared order, before
// the agent sees them) and an outbound chain (the agent's session/update
// notifications, in reverse declared order, before the client sees
// them), the redact plugins first in both, as an acpclient.Filter per
// session. A step is built in (prefix,
// suffix, redact), a command (JSON on stdin and stdout) or an agent of
// the workspace asked through a Runner, so that the package runs no agent
// itself and is tested with a function. Every call is bounded (timeout,
// retries, budget per turn and per session); a failure passes the text on
// unchanged with one warning, or fails the turn naming the plugin
// (onError), and the step is shown as an acpclient.EventPlugin: sizes,
// never the text.
package plugin
