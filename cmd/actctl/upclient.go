package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/schema"
)

// callUp sends one request to the workspace's `actctl up` and returns its
// result (decoded into result, if not nil); frames stream to onFrame.
// Without a running up the error says so plainly.
func callUp(ctx context.Context, g *globals, req control.Request, onFrame func(control.Frame), result any) error {
	cl, err := dialUp(ctx, g)
	if err != nil {
		return err
	}
	final, err := cl.Do(ctx, req, onFrame)
	if err != nil {
		return err
	}
	if result != nil && len(final.Result) > 0 && string(final.Result) != "null" {
		if err := json.Unmarshal(final.Result, result); err != nil {
			return err
		}
	}
	if final.Error != "" {
		if final.Code != 0 {
			return withCode(final.Code, errors.New(final.Error))
		}
		return errors.New(final.Error)
	}
	return nil
}

// upRoot is the workspace root whose up the control commands talk to.
func upRoot(g *globals) (string, error) {
	opts, err := g.LoadOptions()
	if err != nil {
		return "", err
	}
	return schema.Find(opts)
}
