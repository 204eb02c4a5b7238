package acptestagent

import (
	acp "github.com/coder/acp-go-sdk"
)

func init() {
	// silent: the turn never ends: no update, no answer to session/prompt,
	// session/cancel ignored (the process stays up and keeps answering
	// other requests). A test drives an agent that hangs in a turn.
	register("silent", func(t *Turn) (acp.StopReason, error) {
		select {}
	})
}
