package reconcile

// The shared block of a file (materialize.Entry.Shared, block.Shared): one
// block per file, not one per agent, holding the union of the lines of
// every declared agent that wants it there (the .gitignore block, README "What apply writes";
// docs/design.md). Each of those agents records the block, so prune of one
// rewrites it without that agent's lines and prune of the last removes it.

import (
	"bytes"
	"sort"

	"github.com/actctl/actctl/internal/block"
	"github.com/actctl/actctl/materialize"
)

// sharer is one agent's part in a shared block.
type sharer struct {
	agent, dir string
	rec        *EntryState // its record; nil when it is new to the block
	frozen     bool
	wants      bool
}

// blockName is the marker name of a recorded block of agent.
func blockName(agent string, e *EntryState) string {
	if e.Shared {
		return block.Shared
	}
	return agent
}

// sharedBodies computes, for every file holding a shared block, the union
// of the bodies every target (in scope or not: an agent left out of the
// plan keeps its lines) wants there, the agents in name order and each
// line once, keyed by the file's path; and the digests of the unions.
func sharedBodies(targets []*materialize.Target) (map[string][]byte, map[string]string) {
	type part struct {
		agent, abs string
		body       []byte
	}
	var parts []part
	for _, t := range targets {
		for i := range t.Entries {
			if e := &t.Entries[i]; e.Shared && e.Mode == materialize.ModeBlock {
				parts = append(parts, part{t.Agent, newJoiner(t.Dir).join(e.Path), e.Content})
			}
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].agent < parts[j].agent })
	bodies := map[string][]byte{}
	for _, pt := range parts {
		bodies[pt.abs] = unionLines(bodies[pt.abs], normBody(pt.body))
	}
	sums := make(map[string]string, len(bodies))
	for abs, b := range bodies {
		sums[abs] = sum(b)
	}
	return bodies, sums
}

// unionLines appends to a the lines of b that a does not hold (both
// normalized bodies: LF, final newline).
func unionLines(a, b []byte) []byte {
	if a == nil {
		return append([]byte(nil), b...)
	}
	seen := map[string]bool{}
	for _, l := range bytes.SplitAfter(a, []byte("\n")) {
		seen[string(l)] = true
	}
	out := a
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 && !seen[string(l)] {
			seen[string(l)] = true
			out = append(out, l...)
		}
	}
	return out
}

// sharedWant is the union body the shared block of d's file must hold.
func (p *planner) sharedWant(d *desiredItem) []byte {
	if b, ok := p.shared[newJoiner(d.dir).join(d.e.Path)]; ok {
		return b
	}
	return normBody(d.e.Content)
}

// sharedIs reports whether the recorded digest h is the union body of
// d's file (the no-op fast path, see unchanged).
func (p *planner) sharedIs(d *desiredItem, h string) bool {
	if s, ok := p.sharedSums[newJoiner(d.dir).join(d.e.Path)]; ok {
		return s == h
	}
	return sum(normBody(d.e.Content)) == h
}

// sharedItem returns the shared block item of items, or nil.
func sharedItem(items []*item) *item {
	for _, x := range items {
		if x.name == block.Shared {
			return x
		}
	}
	return nil
}

// addSharer adds agent's part to the shared item it.
func (it *item) addSharer(s sharer) {
	for i := range it.sharers {
		if it.sharers[i].agent == s.agent {
			it.sharers[i].wants = it.sharers[i].wants || s.wants
			return
		}
	}
	it.sharers = append(it.sharers, s)
}

// settleShared makes a shared item frozen when no agent in the plan wants
// it and an agent out of the plan still records it.
func (it *item) settleShared() {
	frozen := false
	for _, s := range it.sharers {
		frozen = frozen || (s.frozen && s.rec != nil)
	}
	it.frozen = it.des == nil && frozen
}

// sharedOwns reports whether h is a body any sharer's record wrote.
func (it *item) sharedOwns(h string) bool {
	for _, s := range it.sharers {
		if s.rec != nil && s.rec.owns(h) {
			return true
		}
	}
	return false
}

// sharedClaimed: removing the shared block with body digest h rests on
// committed records from elsewhere alone (no record of this machine
// wrote h).
func (it *item) sharedClaimed(h string) bool {
	for _, s := range it.sharers {
		if s.rec != nil && !s.rec.claimed(h) {
			return false
		}
	}
	return true
}

// sharedRecords makes the records of a shared item: one per agent that
// wants it (same digest and separator for all), and the records of agents
// out of the plan carried as they are.
func sharedRecords(it *item, seps map[*item][]byte) []newRecord {
	var kept []newRecord
	for _, s := range it.sharers {
		if !s.wants || it.frozen {
			if s.frozen && s.rec != nil {
				kept = append(kept, newRecord{agent: s.agent, dir: s.dir, e: *s.rec})
			}
			continue
		}
		if !it.record {
			continue
		}
		e := EntryState{Mode: materialize.ModeBlock, Path: it.des.Path}
		switch {
		case s.rec != nil:
			e = *s.rec
		case it.rec != nil:
			// New to an existing block: its separator and digest.
			e = EntryState{Mode: materialize.ModeBlock, Path: it.des.Path, SHA256: it.rec.SHA256, Sep: it.rec.Sep, Adopted: it.rec.Adopted}
		}
		e.Path, e.Style, e.Shared, e.Claim = it.des.Path, it.des.Style, true, false
		if !it.drifted {
			e.SHA256 = sum(it.insert)
		}
		e.Adopted = e.Adopted || it.adopted
		if sp, ok := seps[it]; ok {
			e.Sep = string(sp)
		}
		kept = append(kept, newRecord{agent: s.agent, dir: s.dir, e: e})
	}
	return kept
}
