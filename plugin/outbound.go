package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/actctl/actctl/schema"
)

// Update passes one session/update's params through the outbound chain,
// in reverse declared order (acpclient.Filter): none when a plugin of
// stream "message" holds it until the turn ends.
func (s *session) Update(ctx context.Context, params []byte) [][]byte {
	return s.pass(ctx, 0, bytes.Clone(params))
}

// End gives back what the plugins of stream "message" held, each whole
// message passed through them and the steps after them, and the turn's
// failure (acpclient.Filter).
func (s *session) End(ctx context.Context) ([][]byte, error) {
	var out [][]byte
	for i, st := range s.set.outbound {
		if merged := s.flush(ctx, st); merged != nil {
			out = append(out, s.pass(ctx, i+1, merged)...)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.turn.err
	s.turn.err = nil
	return out, err
}

// pass runs params through the outbound steps from the i-th on.
func (s *session) pass(ctx context.Context, i int, params []byte) [][]byte {
	for _, st := range s.set.outbound[i:] {
		u, ok := parseUpdate(params)
		if !ok {
			return [][]byte{params} // not an update the plugins know: as it is
		}
		if st.takesWhole(u) {
			s.mu.Lock()
			s.turn.held[st] = append(s.turn.held[st], params)
			s.mu.Unlock()
			return nil
		}
		params = s.outboundCall(ctx, st, u, params)
	}
	return [][]byte{params}
}

// takesWhole reports whether st holds u for the turn's end: a message
// chunk, for a plugin of stream "message".
func (st *step) takesWhole(u *update) bool {
	_, text := u.chunkText()
	return text && st.b.Stream == schema.StreamMessage && !st.p.Builtin()
}

// flush merges the message chunks st held into one chunk through st
// (nil when it held none).
func (s *session) flush(ctx context.Context, st *step) []byte {
	s.mu.Lock()
	held := s.turn.held[st]
	delete(s.turn.held, st)
	s.mu.Unlock()
	if len(held) == 0 {
		return nil
	}
	var texts []string
	first, _ := parseUpdate(held[0])
	for _, p := range held {
		u, _ := parseUpdate(p)
		t, _ := u.chunkText()
		texts = append(texts, t)
	}
	first.setChunkText(strings.Join(texts, ""))
	return s.outboundCall(ctx, st, first, first.bytes())
}

// outboundCall runs st on one update; on a failure the update goes on
// as it came.
func (s *session) outboundCall(ctx context.Context, st *step, u *update, params []byte) []byte {
	switch st.p.Kind {
	case schema.PluginRedact: // built in: runs in place
		out, _, _ := s.call(ctx, st, schema.OnOutbound, string(params), func(ctx context.Context, _ string) (result, error) {
			u.params["update"] = st.redactValue(u.params["update"])
			return result{text: string(u.bytes())}, nil
		})
		return []byte(out.text)
	case schema.PluginCommand:
		if !u.forCommands() {
			return params
		}
		out, _, _ := s.call(ctx, st, schema.OnOutbound, string(params), func(ctx context.Context, _ string) (result, error) {
			p, err := s.set.commandUpdate(ctx, st, u.params)
			return result{text: p}, err
		})
		return []byte(out.text)
	case schema.PluginAgent:
		text, ok := u.chunkText()
		if !ok {
			return params
		}
		out, _, _ := s.call(ctx, st, schema.OnOutbound, text, func(ctx context.Context, text string) (result, error) {
			reply, err := s.ask(ctx, st, text)
			return result{text: reply}, err
		})
		if out.text == text {
			return params
		}
		u.setChunkText(out.text)
		return u.bytes()
	}
	return params
}

// update is a session/update's params, decoded.
type update struct {
	params map[string]any
}

func parseUpdate(params []byte) (*update, bool) {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber() // numbers as they were written
	if d.Decode(&m) != nil {
		return nil, false
	}
	if _, ok := m["update"].(map[string]any); !ok {
		return nil, false
	}
	return &update{params: m}, true
}

func (u *update) body() map[string]any { return u.params["update"].(map[string]any) }

// kind is the update's sessionUpdate.
func (u *update) kind() string {
	k, _ := u.body()["sessionUpdate"].(string)
	return k
}

// chunkText is the text of an agent_message_chunk of text.
func (u *update) chunkText() (string, bool) {
	if u.kind() != "agent_message_chunk" {
		return "", false
	}
	c, _ := u.body()["content"].(map[string]any)
	if c == nil || c["type"] != "text" {
		return "", false
	}
	t, ok := c["text"].(string)
	return t, ok
}

// setChunkText sets the text of an agent_message_chunk (chunkText ok).
func (u *update) setChunkText(t string) {
	u.body()["content"].(map[string]any)["text"] = t
}

// forCommands reports whether a command plugin is given u: an agent's
// message chunk, a tool call or a tool call's update.
func (u *update) forCommands() bool {
	switch u.kind() {
	case "agent_message_chunk", "tool_call", "tool_call_update":
		return true
	}
	return false
}

// bytes is u encoded (HTML characters as they are).
func (u *update) bytes() []byte {
	return encode(u.params)
}

// encode is v as JSON without HTML escapes or a trailing newline.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
