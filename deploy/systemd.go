package deploy

import (
	"path"
	"strconv"
	"strings"

	"github.com/actctl/actctl/schema"
)

// UnitName is the systemd template unit that keeps `actctl up` running
// for one workspace; its instance name is the workspace's path escaped
// (`systemd-escape --path /srv/agents` gives "srv-agents"), which %f
// gives back.
const UnitName = "actctl-up@.service"

// stopSeconds: systemd's stop timeout, above up's shutdown (see
// graceSeconds).
const stopSeconds = graceSeconds

// renderSystemd renders the one template unit. It runs `up` itself, so
// the schedules are actctl's own (no timers: docs/deploy.md).
func renderSystemd(cfg *schema.Config) []File {
	s := cfg.Deploy.Systemd
	target := "default.target"
	if s.Scope == "system" {
		target = "multi-user.target"
	}
	lines := []string{
		"# " + Header,
		"# Scope " + s.Scope + ": " + enableHint(s.Scope),
		"[Unit]",
		"Description=actctl up for the workspace %f",
		"Documentation=https://github.com/actctl/actctl/blob/main/docs/deploy.md",
		"Wants=network-online.target",
		"After=network-online.target",
		"",
		"[Service]",
		"Type=simple",
		"Environment=PATH=%h/go/bin:%h/.local/bin:/usr/local/bin:/usr/bin:/bin",
		"EnvironmentFile=-%E/actctl/%i.env",
		"ExecStart=/usr/bin/env actctl -C %f up",
		"Restart=on-failure",
		"RestartSec=5s",
		"KillMode=mixed",
		"TimeoutStopSec=" + strconv.Itoa(stopSeconds) + "s",
		"",
		"[Install]",
		"WantedBy=" + target,
	}
	return []File{{Path: path.Join(path.Clean(s.Dir), UnitName), Content: []byte(strings.Join(lines, "\n") + "\n")}}
}

func enableHint(scope string) string {
	if scope == "system" {
		return "systemctl link $PWD/" + UnitName + " && systemctl enable --now actctl-up@$(systemd-escape --path /srv/ws).service"
	}
	return "systemctl --user link $PWD/" + UnitName + " && systemctl --user enable --now actctl-up@$(systemd-escape --path /srv/ws).service; loginctl enable-linger"
}
