package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/up"
)

// TestCanvasUpdate: an employee's canvas goes to up as the canvas op in
// its own name; a person (no caller) and HTML over the bound are refused
// before up is asked; up's refusal comes back as a tool error.
func TestCanvasUpdate(t *testing.T) {
	cfg := workspace(t)
	var got []control.Request
	f := &fakeRunner{cfg: cfg, up: func(ctx context.Context, r control.Request, _ func(control.Frame), _ any) error {
		got = append(got, r)
		return nil
	}}
	cs := connect(t, New(cfg, Options{Root: cfg.Root, Caller: "worker", Runner: f}))
	res, text := call(t, cs, CanvasUpdate, map[string]any{"html": "<h1>hi</h1>"})
	if res.IsError || !strings.Contains(text, `"agent":"worker"`) {
		t.Fatalf("canvas_update: %s (error %v)", text, res.IsError)
	}
	if len(got) != 1 || got[0].Op != control.OpCanvas || got[0].Agent != "worker" || got[0].Text != "<h1>hi</h1>" {
		t.Fatalf("requests %+v", got)
	}
	res, text = call(t, cs, CanvasUpdate, map[string]any{"html": strings.Repeat("x", up.MaxCanvas+1)})
	if !res.IsError || !strings.Contains(text, "over the bound") || len(got) != 1 {
		t.Fatalf("oversized: %s (error %v), requests %d", text, res.IsError, len(got))
	}
	f.up = func(context.Context, control.Request, func(control.Frame), any) error { return control.ErrNoUp }
	if res, text := call(t, cs, CanvasUpdate, map[string]any{"html": "x"}); !res.IsError || text != control.ErrNoUp.Error() {
		t.Fatalf("without up: %s", text)
	}

	person := connect(t, New(cfg, Options{Root: cfg.Root, Runner: f}))
	if res, text := call(t, person, CanvasUpdate, map[string]any{"html": "x"}); !res.IsError || !strings.Contains(text, "tool canvas_update is not available") {
		t.Fatalf("person: %s", text)
	}
}
