package hub

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

func TestRemoteProblem(t *testing.T) {
	tok := schema.HubSource{Auth: &schema.HubAuth{TokenEnv: "HUB_TOKEN"}}
	key := schema.HubSource{Auth: &schema.HubAuth{SSHKeyFile: "~/.ssh/hub"}}
	for _, c := range []struct {
		err  error
		src  schema.HubSource
		url  string
		want []string
	}{
		{fmt.Errorf("x: %w", transport.ErrAuthenticationRequired), tok, "https://h/r.git", []string{"refused the credentials", "$HUB_TOKEN"}},
		{transport.ErrAuthorizationFailed, key, "ssh://git@h/r.git", []string{"refused the credentials", "~/.ssh/hub"}},
		{transport.ErrAuthenticationRequired, schema.HubSource{}, "https://h/r.git", []string{"configure auth"}},
		{transport.ErrRepositoryNotFound, schema.HubSource{}, "https://h/r.git", []string{"repository not found"}},
		{errors.New("dial tcp 127.0.0.1:1: connection refused\n"), schema.HubSource{}, "git://h/r", []string{"remote unreachable (dial tcp 127.0.0.1:1: connection refused)"}},
	} {
		got := remoteProblem(c.err, c.src, c.url)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: %q lacks %q", c.err, got, w)
			}
		}
		if strings.Contains(got, "\n") {
			t.Errorf("%v: %q spans lines", c.err, got)
		}
	}
}
