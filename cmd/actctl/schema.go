package main

import (
	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
		Name:         "schema",
		Usage:        "print the embedded CUE schema (vendor it for editor completion)",
		OnUsageError: usageErrors,
		Action: func(c *cli.Context) error {
			_, err := globalsOf(c).Stdout.Write(schema.Source)
			return err
		},
	})
}
