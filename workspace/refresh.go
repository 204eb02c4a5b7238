package workspace

import "github.com/actctl/actctl/inputs"

// RefreshInputs records again the inputs record of the workspace at
// root (actctl home home) once `actctl up` has started or stopped
// agents, whose runtime records (keys of an instance's .actant.json
// beside those apply owns) changed files the record vouches for
// (inputs.Refresh): the fast path and `status` then hold until the
// config or a file apply owns changes. With ACTCTL_DEBUG=1 it says what
// it did, or why it could not.
func RefreshInputs(o Options, root, home string) {
	n, why := inputs.Refresh(root, home)
	switch {
	case why != "":
		o.debug("inputs", "not recorded again: %s", why)
	case n > 0:
		o.debug("inputs", "recorded again: %d files changed only by the runtime", n)
	}
}
