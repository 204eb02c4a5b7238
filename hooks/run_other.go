//go:build !unix

package hooks

import (
	"context"
	"errors"

	"github.com/actctl/actctl/model"
)

func run(context.Context, string, model.HookRun, Event, Chain) (string, error) {
	return "", errors.New("run hooks need a unix system (process groups)")
}
