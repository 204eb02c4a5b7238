package deps

import (
	_ "cuelang.org/go/cue"
	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/coder/acp-go-sdk"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/tailscale/hujson"
	_ "github.com/urfave/cli/v2"
	_ "golang.org/x/mod/semver"
)
