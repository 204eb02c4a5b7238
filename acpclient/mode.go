package acpclient

import (
	"context"
	"fmt"
	"slices"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/model"
)

// A tool may not take the permission mode the committed project file sets
// (claude-agent-acp drops acceptEdits, auto and bypassPermissions from
// .claude/settings.json), so where actctl is the client it also puts every
// session in the preset's ACP mode itself (docs/run.md, "Session mode").

// ModeFor is the ACP session mode of an agent's permissions (docs/run.md, "Session mode";
// mapping): readonly plan, restricted default, standard acceptEdits,
// permissive bypassPermissions, an explicit rule set its defaultMode; ""
// for no permissions at all (the tool's own settings stay in charge).
func ModeFor(p model.Permissions) string {
	switch p.Preset {
	case model.PresetReadonly:
		return "plan"
	case model.PresetRestricted:
		return "default"
	case model.PresetStandard:
		return "acceptEdits"
	case model.PresetPermissive:
		return "bypassPermissions"
	}
	return p.DefaultMode
}

// Mode is the session's current mode as the agent last reported it (its
// answer to session/new, a session/set_mode it accepted, or a
// current_mode_update); "" if it offers no modes.
func (s *Session) Mode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

func (s *Session) setModeID(id string) {
	s.mu.Lock()
	s.mode = id
	s.mu.Unlock()
}

// applyMode puts a session the agent just opened in Options.Mode when the
// agent offers that mode and the session is not in it already. A mode not
// offered, or refused, is warned about once per Client and the session goes
// on in the agent's mode; the client's Rule still answers its permission
// requests.
func (c *Client) applyMode(ctx context.Context, s *Session, modes *acp.SessionModeState) error {
	if modes == nil {
		return nil
	}
	s.setModeID(string(modes.CurrentModeId))
	want := c.opts.Mode
	if want == "" || string(modes.CurrentModeId) == want {
		return nil
	}
	offered := make([]string, len(modes.AvailableModes))
	for i, m := range modes.AvailableModes {
		offered[i] = string(m.Id)
	}
	if !slices.Contains(offered, want) {
		c.warnMode(fmt.Sprintf("the agent offers no session mode %q (it offers %s): its sessions run in its mode %q, permission requests are still answered by the preset",
			want, strings.Join(offered, ", "), modes.CurrentModeId))
		return nil
	}
	_, err := call[acp.SetSessionModeResponse](ctx, c.conn, acp.AgentMethodSessionSetMode, acp.SetSessionModeRequest{SessionId: acp.SessionId(s.id), ModeId: acp.SessionModeId(want)})
	if err != nil {
		if ctx.Err() != nil || c.connClosed() {
			return c.failure(ctx, ErrStart, "session/set_mode", err)
		}
		c.warnMode(fmt.Sprintf("the agent refused session mode %q: %v: its sessions run in its mode %q", want, err, modes.CurrentModeId))
		return nil
	}
	s.setModeID(want)
	return nil
}

// warnMode passes a mode warning to Options.Warn, once per Client.
func (c *Client) warnMode(msg string) {
	c.modeWarned.Do(func() {
		if c.opts.Warn != nil {
			c.opts.Warn(msg)
		}
	})
}

// ModeForRule is the session mode when a flag overrides the preset's rule
// (mode: the preset's): --deny-all plan and --approve-reads default, so
// that the agent asks before what the flag denies; --approve-all keeps
// the preset's mode (the client approves what the agent asks).
func ModeForRule(rule Rule, mode string) string {
	switch rule {
	case DenyAll:
		return "plan"
	case AllowReads:
		if mode != "plan" {
			return "default"
		}
	}
	return mode
}
