package deploy

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"

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

// The unit's task and descriptor limits, sized from the agents up runs
// (docs/runtime.md, "Limits"). Tasks count threads: up's own (a constant
// number since it waits for its children in the poller) and, per agent,
// its backend's with what the backend starts (terminals, MCP servers,
// language servers). Descriptors: up holds about five per agent (three
// pipes, two pidfds) besides its lock, logs and sockets; the hard limit
// never goes below systemd's default, and the soft limit stays 1024,
// which up raises for itself and its agents inherit.
const (
	tasksBase     = 256
	tasksPerAgent = 64
	filesBase     = 1024
	filesPerAgent = 16
	filesHardMin  = 524288
)

// unitLimits are TasksMax and LimitNOFILE's hard limit for n agents.
func unitLimits(n int) (tasks, files int) {
	return tasksBase + tasksPerAgent*n, max(filesHardMin, filesBase+filesPerAgent*n)
}

// renderSystemd renders the one template unit. It runs `up` itself, so
// the schedules are actctl's own (no timers: docs/deploy.md). The
// secrets file is named by %f, the instance unescaped (the workspace's
// path): %i is the escaped name ("srv-my\x2dagents"), a name nobody
// writes for a path holding "-", a space or a non-ASCII letter. When
// some agents choose other engines, up names those it runs.
func renderSystemd(cfg *schema.Config) []File {
	s := cfg.Deploy.Systemd
	target, conf := "default.target", "~/.config"
	if s.Scope == "system" {
		target, conf = "multi-user.target", "/etc"
	}
	on, some := agentsOn(cfg, schema.TargetSystemd)
	tasks, files := unitLimits(len(on))
	exec := "ExecStart=/usr/bin/env actctl -C %f up"
	if some {
		for _, r := range on {
			exec += " " + r.Name
		}
	}
	lines := []string{
		"# " + Header,
		"# Scope " + s.Scope + ": " + oneLine(enableHint(s.Scope, path.Join(path.Clean(s.Dir), UnitName))),
		"# The agents' secrets, KEY=value lines: " + conf + "/actctl/<the workspace's absolute path>.env (for /srv/agents: " + conf + "/actctl/srv/agents.env)",
		"[Unit]",
		"Description=actctl up for the workspace %f",
		"Documentation=https://github.com/actctl/actctl/blob/main/docs/deploy.md",
		"Wants=network-online.target",
		"After=network-online.target",
		"",
		"[Service]",
		"Type=simple",
		"Environment=PATH=%h/go/bin:%h/.local/bin:/usr/local/bin:/usr/bin:/bin",
		"EnvironmentFile=-%E/actctl%f.env",
		exec,
		"Restart=on-failure",
		"RestartSec=5s",
		"KillMode=mixed",
		"TimeoutStopSec=" + strconv.Itoa(stopSeconds) + "s",
		"TasksMax=" + strconv.Itoa(tasks),
		"LimitNOFILE=" + strconv.Itoa(filesBase) + ":" + strconv.Itoa(files),
	}
	lines = append(lines, hardening(s)...)
	lines = append(lines,
		"",
		"[Install]",
		"WantedBy="+target,
	)
	return []File{{Path: path.Join(path.Clean(s.Dir), UnitName), Content: []byte(strings.Join(lines, "\n") + "\n")}}
}

// hardening is the unit's sandbox (docs/deploy.md, "systemd"). Both
// scopes: no privilege gained through setuid or file capabilities, no
// setuid file made, seccomp's cheap restrictions, files not readable by
// others. A system unit also runs as deploy.systemd.user, sees the file
// system read-only but for the workspace (%f) and that user's home (%h),
// and gets its own /tmp and /dev; a user manager can apply these only
// with user namespaces, so a user unit goes without. Namespaces and
// mount stay allowed (a backend's own sandbox, bubblewrap, uses them),
// W^X memory too (Node's JIT needs it), and all of /proc (Node reads
// /proc/cpuinfo).
func hardening(s *schema.DeploySystemd) []string {
	lines := []string{
		"UMask=0027",
		"NoNewPrivileges=yes",
		"RestrictSUIDSGID=yes",
		"LockPersonality=yes",
		"RestrictRealtime=yes",
		"SystemCallArchitectures=native",
		"SystemCallFilter=~@clock @cpu-emulation @module @obsolete @raw-io @reboot @swap",
		"RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
	}
	if s.Scope != "system" {
		return lines
	}
	account := []string{"User=" + s.User}
	if s.Group != "" {
		account = append(account, "Group="+s.Group)
	}
	return append(append(account, lines...),
		"CapabilityBoundingSet=",
		"ProtectSystem=strict",
		"ProtectHome=read-only",
		"ReadWritePaths=%f -%h",
		"PrivateTmp=yes",
		"PrivateDevices=yes",
		"ProtectKernelTunables=yes",
		"ProtectKernelModules=yes",
		"ProtectKernelLogs=yes",
		"ProtectControlGroups=yes",
		"ProtectClock=yes",
		"ProtectHostname=yes",
		"ProtectProc=invisible",
		"RemoveIPC=yes",
	)
}

// oneLine is s with each control character (a line or paragraph
// separator too) written as a Go escape: a comment stays one line of the
// unit whatever the config holds (validate refuses such a directory).
func oneLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// enableHint is how to link and start the unit at unit (its path from the
// workspace root) for the workspace in the current directory.
func enableHint(scope, unit string) string {
	const from = "from the workspace root: "
	if scope == "system" {
		return from + "systemctl link $PWD/" + unit + " && systemctl enable --now actctl-up@$(systemd-escape --path $PWD).service"
	}
	return from + "systemctl --user link $PWD/" + unit + " && systemctl --user enable --now actctl-up@$(systemd-escape --path $PWD).service; loginctl enable-linger"
}
