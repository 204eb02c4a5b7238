package up

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/acptestagent"
)

// say prompts service agent and returns the text it answered.
func (h *harness) say(agent, text string) string {
	h.t.Helper()
	var mu sync.Mutex
	var out bytes.Buffer
	sink := func(kind string, v any) {
		raw, ok := v.(json.RawMessage)
		if !ok {
			return
		}
		var msg struct {
			Params acp.SessionNotification `json:"params"`
		}
		if json.Unmarshal(raw, &msg) != nil {
			return
		}
		if n := msg.Params; n.Update.AgentMessageChunk != nil && n.Update.AgentMessageChunk.Content.Text != nil {
			mu.Lock()
			out.WriteString(n.Update.AgentMessageChunk.Content.Text.Text)
			mu.Unlock()
		}
	}
	if _, err := h.m.Prompt(context.Background(), agent, text, true, sink); err != nil {
		h.t.Fatalf("prompt %q: %v", text, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String()
}

// TestLeaseClientGoneDuringSessionNew: a lease client that disconnects
// while its session/new is in flight (the agent holds it, test agent op
// hold-new) leaves no session open in the warm agent: the session the
// agent opens once it answers is closed (session/close), and nothing of
// it is leased (issue #26 item 7). The old code did so already (the
// lease relay keeps a gone client's session/new call until its answer,
// then drops the session): a regression test.
func TestLeaseClientGoneDuringSessionNew(t *testing.T) {
	for _, noClose := range []bool{false, true} {
		name := map[bool]string{false: "session-close", true: "no-session-close"}[noClose]
		t.Run(name, func(t *testing.T) {
			env := map[string]string{}
			if noClose {
				env[acptestagent.NoCloseVar] = "1"
			}
			h := newHarness(t, env)
			h.m.Sync([]Spec{service(t, "api")})
			h.wait("process:start", "api")
			before := h.say("api", "sessions") // the primary and the prompt's own
			dir := t.TempDir()
			h.say("api", "hold-new "+dir)
			c := h.lease("api", "")
			opened := make(chan error, 1)
			go func() {
				_, err := c.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
				opened <- err
			}()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a failure guard
			defer cancel()
			if err := acptestagent.AwaitFile(ctx, filepath.Join(dir, acptestagent.HeldFile)); err != nil {
				t.Fatal(err)
			}
			c.close() // returns once up has detached the client
			if err := <-opened; err == nil {
				t.Fatal("session/new answered to a client that went away")
			}
			if err := os.WriteFile(filepath.Join(dir, acptestagent.ReleaseFile), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			h.waitLog("its lease client went away before the answer")
			waitLeases(t, h.m, "api", 0)
			after := h.say("api", "sessions")
			if noClose {
				return // no session/close: up forgets the session (its turn, if any, cancelled); the agent keeps it
			}
			if count(after) != count(before) {
				t.Errorf("sessions before %q, after %q: the session opened for the gone client is still open", before, after)
			}
		})
	}
}

func count(s string) string { return regexp.MustCompile(`\d+`).FindString(s) }
