package plugin

import (
	"context"
	"errors"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/schema"
)

// Prompt passes the prompt's blocks through the inbound chain, in
// declared order (acpclient.Filter); it starts the turn's budgets.
func (s *session) Prompt(ctx context.Context, blocks []acp.ContentBlock) ([]acp.ContentBlock, error) {
	s.mu.Lock()
	s.turn = newTurnState()
	s.mu.Unlock()
	for _, st := range s.set.inbound {
		in := blocks
		res, ok, err := s.call(ctx, st, schema.OnInbound, textOf(in), func(ctx context.Context, text string) (result, error) {
			next, err := s.inboundOnce(ctx, st, in, text)
			return result{text: textOf(next), blocks: next}, err
		})
		if err != nil {
			return nil, err
		}
		if ok { // else the step failed and passed the prompt on
			blocks = res.blocks
		}
	}
	return blocks, nil
}

// inboundOnce is one try of st on the prompt's blocks (text is their
// text).
func (s *session) inboundOnce(ctx context.Context, st *step, blocks []acp.ContentBlock, text string) ([]acp.ContentBlock, error) {
	switch st.p.Kind {
	case schema.PluginPrefix:
		return append([]acp.ContentBlock{acp.TextBlock(st.p.Text)}, blocks...), nil
	case schema.PluginSuffix:
		return append(blocks[:len(blocks):len(blocks)], acp.TextBlock(st.p.Text)), nil
	case schema.PluginRedact:
		return st.redactBlocks(blocks), nil
	case schema.PluginCommand:
		return s.set.commandPrompt(ctx, st, blocks)
	}
	reply, err := s.ask(ctx, st, text)
	if err != nil {
		return nil, err
	}
	if st.b.Inject == schema.InjectContext {
		return append([]acp.ContentBlock{contextBlock(st.name, reply)}, blocks...), nil
	}
	return replaceText(blocks, reply), nil
}

// textOf is the text of the prompt's text blocks, joined by newlines.
func textOf(blocks []acp.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// replaceText puts one text block of text where the first text block
// was, the other text blocks out; the other blocks stay.
func replaceText(blocks []acp.ContentBlock, text string) []acp.ContentBlock {
	out := make([]acp.ContentBlock, 0, len(blocks))
	placed := false
	for _, b := range blocks {
		if b.Text == nil {
			out = append(out, b)
		} else if !placed {
			out, placed = append(out, acp.TextBlock(text)), true
		}
	}
	if !placed {
		out = append(out, acp.TextBlock(text))
	}
	return out
}

// ContextURI is the uri of the resource block an agent plugin with
// inject "context" adds to the prompt (docs/plugins.md).
const ContextURI = "actctl-plugin:"

// contextBlock is the resource block of plugin's reply.
func contextBlock(plugin, reply string) acp.ContentBlock {
	mime := "text/plain"
	return acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{
		Uri: ContextURI + plugin, MimeType: &mime, Text: reply}})
}

// ask runs st's sub-agent turn on text with st's prompt.
func (s *session) ask(ctx context.Context, st *step, text string) (string, error) {
	prompt := st.p.Prompt
	if prompt == "" {
		prompt = "{{text}}"
	}
	reply, err := s.runTurn(ctx, AgentTurn{Plugin: st.name, Agent: st.p.Agent, Preset: st.b.Preset,
		Prompt: strings.ReplaceAll(prompt, "{{text}}", text)})
	if err == nil && strings.TrimSpace(reply) == "" && strings.TrimSpace(text) != "" {
		return "", errEmptyReply // it would lose the text
	}
	return reply, err
}

// errEmptyReply is a sub-agent's empty reply to a text that was not.
var errEmptyReply = errors.New("the sub-agent's reply was empty")
