package deploy

import (
	"strings"
	"testing"
)

// TestSystemdEnableHint: the unit's comment links it by its path from the
// workspace root (deploy.systemd.dir), as docs/deploy.md does; it said
// $PWD/actctl-up@.service, right only from inside that directory, where
// $(systemd-escape --path ...) still needs the workspace's path.
func TestSystemdEnableHint(t *testing.T) {
	cfg := loadTeam(t)
	for scope, want := range map[string]string{
		"user":   "# Scope user: from the workspace root: systemctl --user link $PWD/deploy/systemd/actctl-up@.service && systemctl --user enable --now actctl-up@$(systemd-escape --path $PWD).service; loginctl enable-linger\n",
		"system": "# Scope system: from the workspace root: systemctl link $PWD/deploy/systemd/actctl-up@.service && systemctl enable --now actctl-up@$(systemd-escape --path $PWD).service\n",
	} {
		cfg.Deploy.Systemd.Scope = scope
		files := renderSystemd(cfg)
		if !strings.Contains(string(files[0].Content), want) {
			t.Errorf("scope %s:\n%s\nwant the line %q", scope, files[0].Content, want)
		}
	}
}
