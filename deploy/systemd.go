package deploy

import "github.com/actctl/actctl/schema"

func renderSystemd(cfg *schema.Config) []File { return nil }
