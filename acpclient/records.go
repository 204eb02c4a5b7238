package acpclient

import (
	"path/filepath"
	"strings"

	"github.com/actctl/actctl/internal/layout"
)

// CanvasFile is the file, in an employee's instance, that keeps its live
// canvas (up.CanvasFile; written only by the MCP tool canvas_update).
const CanvasFile = "canvas.html"

// InstanceRecord explains why no agent may write at rel, a path relative
// to an instance workspace (one agent's directory), or returns "": the
// records actctl keeps there and shows as the agent's history, which the
// agent would otherwise forge (docs/run.md, "Confinement"): its logs/
// (the task logs and their summaries in actctl.log, which `actctl logs`
// and the dashboard show, the backend's proxy.log), its runtime record
// .actant.json (and the files beside it named after it: its lock) and an
// employee's canvas.html. Names are compared in any letter case. An
// employee's .heartbeat is not among them: the agent owns it
// (docs/runtime.md, "Employees").
func InstanceRecord(rel string) string {
	clean := cleanSlash(rel)
	first, _, _ := strings.Cut(clean, "/")
	switch {
	case strings.EqualFold(first, layout.Logs):
		return "it is in the instance's logs/, actctl's record of the agent's tasks (what actctl logs and the dashboard show)"
	case len(first) >= len(layout.InstanceRecord) && strings.EqualFold(first[:len(layout.InstanceRecord)], layout.InstanceRecord):
		return "it is the instance's runtime record (" + layout.InstanceRecord + "), which only actctl writes"
	case strings.EqualFold(clean, CanvasFile):
		return "it is the employee's canvas, which only the MCP tool canvas_update replaces"
	}
	return ""
}

// cleanSlash is p cleaned, with slashes.
func cleanSlash(p string) string { return filepath.ToSlash(filepath.Clean(p)) }

// writeCheck is the check of a write beneath root r (called with the path
// asked for and the real path of the file and of each directory the write
// would make, relative to r): apply's protected set (protectedCheck)
// and, when the agent's workspace is an instance, the instance's records
// (InstanceRecord), wherever the root lies relative to the instance.
func (s *Session) writeCheck(r root) func(rel string) error {
	return func(rel string) error {
		if err := protectedCheck(rel); err != nil {
			return err
		}
		if s.instance == "" {
			return nil
		}
		in, ok := within(s.instance, filepath.Join(r.real, rel))
		if !ok {
			return nil
		}
		if why := InstanceRecord(in); why != "" {
			return &errProtected{rel: rel, why: why}
		}
		return nil
	}
}
