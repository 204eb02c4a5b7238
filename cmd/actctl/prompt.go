package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/up"
)

func init() {
	register(&cli.Command{
		Name:      "prompt",
		Usage:     "prompt AGENT held by the running actctl up: an employee queues a task (and waits for it), a service answers in a new session",
		ArgsUsage: "AGENT [-p TEXT | stdin]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "the prompt `TEXT`"},
			&cli.BoolFlag{Name: "no-wait", Usage: "return once the prompt is queued; print its task id"},
			&cli.DurationFlag{Name: "timeout", Usage: "stop waiting after `D` (exit 124); the task's own deadline is the template's turnTimeout"},
		},
		OnUsageError: usageErrors,
		Action:       promptCmd,
	})
}

func promptCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return usageError("prompt: want exactly one AGENT")
	}
	text, err := readPrompt(c)
	if err != nil {
		return err
	}
	// As run's: a signal ends it with 128+n and says so.
	ctx, cancel := runContext(c.Duration("timeout"))
	defer cancel()
	out := newRunObserver(g)
	var res up.Outcome
	wait := !c.Bool("no-wait")
	req := control.Request{Op: control.OpPrompt, Agent: c.Args().First(), Text: text, Wait: wait}
	if req.Chain, err = hookChain(); err != nil {
		return err
	}
	if req.Chain != nil {
		req.Source = up.SourceHook // a hook's command prompts
	}
	err = callUp(ctx, g, req, func(f control.Frame) { showFrame(out, f) }, &res)
	if cause := context.Cause(ctx); ctx.Err() != nil {
		out.summary(req.Agent, acpclient.Result{}, codeOf(cause), cause)
		return withCode(codeOf(cause), cause)
	}
	if !wait && err == nil {
		if g.JSON() {
			return g.PrintJSON(res)
		}
		fmt.Fprintf(g.Stdout, "queued task %d for %s\n", res.Task, res.Agent)
		return nil
	}
	if res.Agent == "" { // no turn ran: up refused or is not running
		return err
	}
	ar := acpclient.Result{StopReason: acpclient.StopReason(res.StopReason), SessionID: res.SessionID,
		Duration: time.Duration(res.DurationMs) * time.Millisecond, Permissions: res.Permissions}
	code, err := turnCode(ar, upTurnErr(res, err), nil, ctx.Err() != nil)
	out.summary(res.Agent, ar, code, err)
	if code != 0 {
		return withCode(code, err)
	}
	return nil
}

// upTurnErr is the error of a turn up ran, in up's words, for turnCode:
// a turn with no stop reason failed (its error, else up's answer: up
// stopped before the turn ended); a cancelled one says who cancelled it
// (up shutting down, the agent on its own). Nil for the other stop
// reasons, which turnCode names.
func upTurnErr(res up.Outcome, answer error) error {
	switch {
	case res.StopReason == "" && res.Error == "":
		return answer
	case res.StopReason == "" || res.StopReason == string(acpclient.StopReasonCancelled):
		if res.Error != "" {
			return errors.New(res.Error)
		}
	}
	return nil
}

// hookChain is the hook chain of a prompt made by a hook's command
// (hooks.ChainVar), for up to bound (docs/runtime.md, "Hook loops"); nil
// outside hooks.
func hookChain() (json.RawMessage, error) {
	s := os.Getenv(hooks.ChainVar)
	if s == "" {
		return nil, nil
	}
	if _, err := hooks.ParseChain(s); err != nil {
		return nil, fmt.Errorf("prompt: %s: %w", hooks.ChainVar, err)
	}
	return json.RawMessage(s), nil
}

// showFrame passes one streamed frame of the turn to the run output.
func showFrame(out *runObserver, f control.Frame) {
	switch f.Kind {
	case "message":
		out.Message(f.Data)
	case "event":
		var e acpclient.Event
		if json.Unmarshal(f.Data, &e) == nil {
			out.Event(e)
		}
	}
}
