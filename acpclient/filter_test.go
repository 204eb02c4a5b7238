package acpclient

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// holdFilter prefixes the test agent's op "upper" to the prompt, holds
// every update until the turn's end, and ends the turn with endErr.
type holdFilter struct {
	mu     sync.Mutex
	held   [][]byte
	endErr error
}

func (f *holdFilter) Prompt(_ context.Context, blocks []acp.ContentBlock) ([]acp.ContentBlock, error) {
	return []acp.ContentBlock{acp.TextBlock("upper " + blocks[0].Text.Text)}, nil
}

func (f *holdFilter) Update(_ context.Context, params []byte) [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = append(f.held, bytes.Clone(params))
	return nil
}

func (f *holdFilter) End(context.Context) ([][]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	held := f.held
	f.held = nil
	return held, f.endErr
}

// TestFilterHook: a session's Filter is given the prompt before it is
// sent and each session/update before it is dispatched; what End gives
// back reaches the observer (its messages and events) before the turn's
// answer, and End's error fails the turn.
func TestFilterHook(t *testing.T) {
	f := &holdFilter{}
	c, rec := startTestAgent(t, Options{Filter: func(func(Event)) Filter { return f }})
	prompt(t, c, "hello world")
	if got := rec.String(); got != "HELLO WORLD" {
		t.Errorf("text %q", got)
	}
	rec.mu.Lock()
	lines := strings.Join(rec.recorder.lines, "\n")
	rec.mu.Unlock()
	update, answer := strings.Index(lines, `"HELLO WORLD"`), strings.Index(lines, `"stopReason"`)
	if update < 0 || answer < 0 || update > answer {
		t.Errorf("the held update is not before the answer:\n%s", lines)
	}
	f.endErr = errors.New("plugin x failed")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Prompt(ctx, "again"); err == nil || err.Error() != "plugin x failed" {
		t.Errorf("End's error: %v", err)
	}
	if !strings.HasSuffix(rec.String(), "AGAIN") {
		t.Errorf("the failed turn's text was lost: %q", rec.String())
	}
}
