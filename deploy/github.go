package deploy

import "github.com/actctl/actctl/schema"

func renderGitHub(cfg *schema.Config, o Options) ([]File, error) { return nil, nil }
