package reconcile

import (
	"fmt"
	"io/fs"
)

// Owned files have a mode as well as bytes: a skill's script is executable
// (README, "What apply writes"). Only the executable bit is actctl's, as
// in git: the other bits stay as the user set them.

// isExec reports whether perm has any executable bit.
func isExec(perm fs.FileMode) bool { return perm&0o111 != 0 }

// newPerm is the mode of a file actctl creates.
func newPerm(exec bool) fs.FileMode {
	if exec {
		return 0o755
	}
	return 0o644
}

// withExec is cur made executable (x wherever it is readable, as
// `chmod +x` under a umask does) or not executable.
func withExec(cur fs.FileMode, exec bool) fs.FileMode {
	cur = cur.Perm()
	if !exec {
		return cur &^ 0o111
	}
	if x := (cur & 0o444) >> 2; x != 0 {
		return cur | x
	}
	return cur | 0o100
}

func execWord(exec bool) string {
	if exec {
		return "executable"
	}
	return "not executable"
}

// ownedMode plans the mode of the owned file d wants in g, recording it
// in ne: a new file gets newPerm; an existing one gets its executable bit
// set or cleared when it differs from what is rendered. A bit changed by
// hand since the last apply (rec) is drift: reported and kept, unless
// --force.
func (p *planner) ownedMode(g *fileGroup, d *desiredItem, rec, ne *EntryState, fs *fileState) {
	ne.Exec = d.e.Exec
	if !g.fi.Exists {
		fs.perm = newPerm(d.e.Exec)
		return
	}
	cur := g.fi.Perm
	if rec != nil && isExec(cur) != rec.Exec && !p.o.Force {
		p.note(g, ActDrift, d.agent, d.policy, "mode changed since the last apply (%04o, %s; actctl wrote it %s); kept (use --force to set it back)",
			cur, execWord(isExec(cur)), execWord(rec.Exec))
		ne.Exec = rec.Exec
		fs.drifted = true
		return
	}
	if isExec(cur) == d.e.Exec {
		return
	}
	fs.perm = withExec(cur, d.e.Exec)
	reason := fmt.Sprintf("mode %04o -> %04o", cur, fs.perm)
	if rec != nil && isExec(cur) != rec.Exec {
		reason += ", forced over a hand edit"
	}
	fs.touch(d.agent, reason)
}

// modeHeader is what a diff shows of a mode change, as git shows it.
func modeHeader(op *Op) string {
	if !op.SetPerm || !op.Exists || op.Action == ActDelete || op.OldPerm == op.Perm {
		return ""
	}
	return fmt.Sprintf("diff --git %s %s\nold mode %o\nnew mode %o\n", diffLabel("a", op.Rel), diffLabel("b", op.Rel), 0o100000|op.OldPerm, 0o100000|op.Perm)
}
