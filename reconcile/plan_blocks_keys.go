package reconcile

// Planning the blocks (internal/block) and keys (codecs.go) of one file:
// what each agent wants against what the last apply wrote and the disk
// holds now.

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/actctl/actctl/internal/block"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// item is one block, or one key, of one agent in one file, with what the
// plan decided for it.
type item struct {
	agent, dir, policy string
	// name: a block's marker name (its agent, or block.Shared); sharers:
	// the agents of a shared block (see plan_shared.go).
	name    string
	sharers []sharer
	rec     *EntryState // block: its record; keys: the entry record
	krec    *KeyState   // keys: the key record
	des     *materialize.Entry
	key     []string
	want    []byte // desired body / canonical value
	frozen  bool
	// cur is the current body / canonical value; ok whether present.
	cur []byte
	ok  bool
	// insert is what the item's block/key must hold after the plan (nil:
	// absent); record whether it stays in the state.
	insert  []byte
	record  bool
	drifted bool // keep the old digest so drift stays reported
	// adopted: a block already exactly as apply would write it, that
	// actctl has no record of (see decide).
	adopted bool
	changed bool
	// kept: a recorded item left to the user where it is (a claim git
	// cannot give back, see planner.vouched): a replay neither removes
	// nor sets it.
	kept bool
	// wantRaw: digest of the desired key value as rendered (KeyState.Want).
	wantRaw string
	// moved: a new key whose current value is what recorded keys above or
	// below its path that come out in this plan leave (see movedFree).
	moved []*item
}

// normBody is a block body as block.Find reports it back: LF line endings
// and a final newline. Digests are taken of this form.
func normBody(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b[:len(b):len(b)], '\n')
	}
	return b
}

// text plans the blocks and keys of one file and returns their records.
// userFile: the file exists and no agent has a record of it.
func (p *planner) text(g *fileGroup, fs *fileState, userFile bool) ([]newRecord, error) {
	var desBlocks, desKeys []desiredItem
	for _, d := range g.desired {
		switch d.e.Mode {
		case materialize.ModeBlock:
			desBlocks = append(desBlocks, d)
		case materialize.ModeKeys:
			desKeys = append(desKeys, d)
		}
	}
	var recBlocks, recKeys []recordedItem
	for _, r := range g.recorded {
		switch r.e.Mode {
		case materialize.ModeBlock:
			recBlocks = append(recBlocks, r)
		case materialize.ModeKeys:
			recKeys = append(recKeys, r)
		}
	}
	if len(desBlocks)+len(desKeys)+len(recBlocks)+len(recKeys) == 0 {
		return nil, nil
	}

	// workDirConflict for a file that is the user's.
	if userFile {
		allowed := func(ds []desiredItem) []desiredItem {
			var out []desiredItem
			for _, d := range ds {
				switch d.policy {
				case schema.ConflictSkip:
					p.note(g, ActSkip, d.agent, d.policy, "exists and is not actctl's; left alone")
				case schema.ConflictError:
					p.note(g, ActConflict, d.agent, d.policy, "exists and is not actctl's")
				case schema.ConflictOverwrite:
					if fs.backup == "" {
						fs.backup = p.backupPath(g.abs)
						fs.content = []byte{}
						fs.touch(d.agent, "the user's file is backed up to "+fs.backup)
					}
					out = append(out, d)
				default:
					out = append(out, d)
				}
			}
			return out
		}
		desBlocks, desKeys = allowed(desBlocks), allowed(desKeys)
	}
	var kept []newRecord
	if len(desBlocks)+len(recBlocks) > 0 {
		k, ok := p.blocks(g, fs, desBlocks, recBlocks)
		if !ok {
			return nil, nil
		}
		kept = append(kept, k...)
	}
	if len(desKeys)+len(recKeys) > 0 {
		k, ok := p.keys(g, fs, desKeys, recKeys, userFile)
		if !ok {
			return nil, nil
		}
		kept = append(kept, k...)
	}
	return kept, nil
}

// blocks plans the managed blocks of one file. ok is false when the file
// cannot be edited safely (a conflict was noted).
func (p *planner) blocks(g *fileGroup, fs *fileState, des []desiredItem, recs []recordedItem) ([]newRecord, bool) {
	if p.refuseNonText(g, fs, des, recs) {
		return nil, false
	}
	items, ok := p.blockItems(g, fs, des, recs)
	if !ok {
		return nil, false
	}
	seps, ok := p.editBlocks(g, fs, items)
	if !ok {
		return nil, false
	}
	if !fs.present {
		// The file is new (or came back): nothing of the user's is in it.
		fs.present = true
		if !g.fi.Exists {
			fs.created = true
		}
	}
	return blockRecords(items, seps), true
}

// blockItems pairs the recorded blocks (recs) with the desired ones
// (des), each with its current body in the file.
func (p *planner) blockItems(g *fileGroup, fs *fileState, des []desiredItem, recs []recordedItem) ([]*item, bool) {
	var items []*item
	find := func(it *item, style string) bool {
		body, ok, err := block.Find(fs.content, it.name, style)
		if err != nil {
			p.note(g, ActConflict, it.agent, "", "cannot edit the file safely: %v", err)
			return false
		}
		it.cur, it.ok = body, ok
		return true
	}
	for i := range recs {
		r := recs[i]
		it := &item{agent: r.agent, dir: r.dir, name: blockName(r.agent, &r.e), rec: &recs[i].e, frozen: r.frozen}
		if r.e.Shared {
			if x := sharedItem(items); x != nil {
				x.addSharer(sharer{agent: r.agent, dir: r.dir, rec: &recs[i].e, frozen: r.frozen})
				continue
			}
			it.addSharer(sharer{agent: r.agent, dir: r.dir, rec: &recs[i].e, frozen: r.frozen})
		}
		if !find(it, r.e.Style) {
			return nil, false
		}
		items = append(items, it)
	}
	for i := range des {
		d := des[i]
		if d.e.Shared {
			if !p.sharedDesired(fs, &items, &d, find) {
				return nil, false
			}
			continue
		}
		want := normBody(d.e.Content)
		var it *item
		for _, x := range items {
			if x.agent == d.agent && x.sharers == nil && !x.frozen && x.des == nil && x.rec.Style == d.e.Style {
				it = x
			}
		}
		if it == nil {
			it = &item{agent: d.agent, dir: d.dir, name: d.agent}
			if !find(it, d.e.Style) {
				return nil, false
			}
			items = append(items, it)
		}
		it.des, it.policy, it.want, it.dir = d.e, d.policy, want, d.dir
	}
	items = p.renameBlocks(fs, items)
	for _, it := range items {
		if it.sharers != nil {
			it.settleShared()
			p.keepUndeclared(it)
		}
	}
	return items, true
}

// keepUndeclared keeps in a shared block the lines it holds now while an
// agent removed from the config with --no-prune still records it: its
// lines are not known apart from the others', and --no-prune leaves an
// agent's content where it is.
func (p *planner) keepUndeclared(it *item) {
	if it.des == nil || !it.ok {
		return
	}
	for _, s := range it.sharers {
		if s.frozen && s.rec != nil && !p.declared[s.agent] {
			it.want = unionLines(normBody(it.cur), it.want)
			return
		}
	}
}

// sharedDesired adds d, an agent's wish for the shared block of the file,
// to the file's shared item (made on first sight): the item wants the
// union body of every agent's lines.
func (p *planner) sharedDesired(fs *fileState, items *[]*item, d *desiredItem, find func(*item, string) bool) bool {
	it := sharedItem(*items)
	if it == nil {
		it = &item{agent: d.agent, dir: d.dir, name: block.Shared}
		if !find(it, d.e.Style) {
			return false
		}
		*items = append(*items, it)
	}
	it.addSharer(sharer{agent: d.agent, dir: d.dir, wants: true})
	want := p.sharedWant(d)
	if it.des != nil {
		want = unionLines(it.want, want)
	} else {
		it.agent, it.dir, it.policy = d.agent, d.dir, d.policy
	}
	it.des, it.want = d.e, want
	return true
}

// editBlocks decides every block and edits the file's content: in place
// when blocks are only added or changed, or, when a block comes out, by
// replaying: every recorded block removed (the last in the file first,
// with exactly its separator), then every kept one inserted again in
// order (see editItems). It returns the separators of the blocks it
// inserted.
func (p *planner) editBlocks(g *fileGroup, fs *fileState, items []*item) (map[*item][]byte, bool) {
	replay := false
	for _, it := range items {
		p.decide(g, fs, it, items, func(a, b []byte) bool { return bytes.Equal(a, b) })
		if it.rec != nil && it.ok && it.insert == nil {
			replay = true // a block comes out: re-seat all (see Seq)
		}
	}
	style := func(it *item) string {
		if it.des != nil {
			return it.des.Style
		}
		return it.rec.Style
	}
	seps, failed, err := editItems(fs, items, replay,
		func(it *item) bool { return it.rec != nil },
		func(it *item, sep []byte) bool { return sep != nil || it.rec == nil },
		func(c []byte, it *item) (int, bool) { return blockOffset(c, it.name, style(it)) },
		func(c []byte, it *item) ([]byte, error) {
			return block.Remove(c, it.name, it.rec.Style, []byte(it.rec.Sep))
		},
		func(c []byte, it *item) ([]byte, []byte, error) {
			return block.Upsert(c, it.name, style(it), it.insert)
		})
	if err != nil {
		p.note(g, ActConflict, failed.agent, "", "cannot edit the file safely: %v", err)
		return nil, false
	}
	return seps, true
}

// blockRecords makes the record of every block kept.
func blockRecords(items []*item, seps map[*item][]byte) []newRecord {
	var kept []newRecord
	for _, it := range items {
		if it.sharers != nil {
			kept = append(kept, sharedRecords(it, seps)...)
			continue
		}
		if !it.record {
			continue
		}
		var e EntryState
		if it.rec != nil {
			e = *it.rec
		} else {
			e = EntryState{Mode: materialize.ModeBlock, Path: it.des.Path}
		}
		if it.des != nil {
			e.Path, e.Style = it.des.Path, it.des.Style
			e.Claim = false // its agent wants it: confirmed
		}
		if !it.drifted {
			e.SHA256 = sum(it.insert)
		}
		e.Adopted = e.Adopted || it.adopted
		if s, ok := seps[it]; ok {
			e.Sep = string(s)
		}
		kept = append(kept, newRecord{agent: it.agent, dir: it.dir, e: e})
	}
	return kept
}

// blockOffset is where the named block's BEGIN line starts in c (ok
// false without one): a marker line as block.Find matches it.
func blockOffset(c []byte, name, style string) (int, bool) {
	begin, _, err := block.Markers(name, style)
	if err != nil {
		return 0, false
	}
	for off := 0; off < len(c); {
		next := len(c)
		if i := bytes.IndexByte(c[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		if string(bytes.Trim(c[off:next], " \t\r\n")) == begin {
			return off, true
		}
		off = next
	}
	return 0, false
}

// decide applies the ownership rules (README, "What apply writes") to one
// block or key: update what actctl wrote, keep and report hand edits (drift)
// unless --force, remove what is no longer wanted, and respect workDirConflict
// for content actctl never wrote. items are all the items of the file,
// decided in order (the recorded ones first).
func (p *planner) decide(g *fileGroup, fs *fileState, it *item, items []*item, equal func(a, b []byte) bool) {
	// owned: whether a body / value with digest h is one actctl wrote.
	owned := func(string) bool { return false }
	switch {
	case it.krec != nil:
		owned = it.krec.owns
	case it.sharers != nil:
		owned = it.sharedOwns
	case it.rec != nil && it.key == nil:
		owned = it.rec.owns
	}
	recorded := it.krec != nil || (it.rec != nil && it.key == nil)
	what := "block"
	if it.key != nil {
		what = "key " + strings.Join(it.key, ".")
	}
	switch {
	case it.frozen:
		if it.rec != nil && it.rec.FileSHA == "" {
			fs.drifted = true // keep a frozen drift visible
		}
		if it.ok {
			it.insert, it.record = it.cur, true
		}
		it.drifted = true // carried over: keep its digest
		if !it.ok {
			it.record = true
		}
	case recorded && it.des == nil:
		if x := sharedItem(items); x != nil && it.sharers == nil && it.key == nil && x.des != nil {
			what += " (merged into the file's one block, which its agents share)"
		}
		p.unwanted(g, fs, it, what, owned)
	case recorded:
		p.rewanted(g, fs, it, what, owned, equal)
	default:
		p.wantedNew(g, fs, it, what, released(items, it), equal)
	}
}

// released returns the recorded key of another agent at it's key path
// (same file) that comes out in this plan: its agent is pruned (or no
// longer wants it) and the value is actctl's, so it is actctl's to take
// over (an agent renamed in the same edit). Nil when there is none: a
// frozen agent, or a value kept as the user's, holds on to it. Blocks
// are never released to another agent: their markers name their agent.
func released(items []*item, it *item) *item {
	if it.key == nil {
		return nil
	}
	for _, x := range items {
		if x != it && x.agent != it.agent && x.krec != nil && !x.frozen && x.des == nil &&
			x.ok && x.insert == nil && x.changed && slices.Equal(x.key, it.key) {
			return x
		}
	}
	return nil
}

// movedFree returns the recorded keys above or below it's path (a prefix
// of it, or it a prefix of theirs) that come out in this plan (decided
// before it: recorded items come first), when removing them, each with its
// receipt, leaves nothing at it's path: the value there is actctl's, moved
// to a deeper or shallower path of the same file (an MCP entry
// mcpServers.x that becomes the settings leaf mcpServers.x.command, or
// back), not the user's. Nil otherwise.
func movedFree(kc keyCodec, c []byte, items []*item, it *item) []*item {
	var out []*item
	for _, x := range items {
		if x != it && x.krec != nil && !x.frozen && x.ok && x.insert == nil && x.changed &&
			!slices.Equal(x.key, it.key) && (isPrefix(x.key, it.key) || isPrefix(it.key, x.key)) {
			out = append(out, x)
		}
	}
	if out == nil {
		return nil
	}
	byPosition(c, out, func(c []byte, x *item) (int, bool) { return kc.offset(c, x.key) })
	for i := len(out) - 1; i >= 0; i-- {
		var err error
		if c, err = kc.del(c, out[i].key, out[i].krec.Receipt); err != nil {
			return nil
		}
	}
	if _, ok, err := kc.get(c, it.key); err != nil || ok {
		return nil
	}
	return out
}

// isPrefix reports whether p is a prefix of k.
func isPrefix(p, k []string) bool {
	return len(p) <= len(k) && slices.Equal(p, k[:len(p)])
}

// unwanted decides a recorded item no agent wants any more (prune): it
// comes out, unless it was there before actctl or was edited by hand.
func (p *planner) unwanted(g *fileGroup, fs *fileState, it *item, what string, owned func(string) bool) {
	if !it.ok {
		return
	}
	if it.key == nil && it.rec.Adopted {
		it.insert = it.cur // it was there before actctl: it stays
		return
	}
	h := sum(it.cur)
	if owned(h) && it.claimed(h) && !p.vouched(g, it.agent, what) {
		it.insert, it.kept = it.cur, true
		return
	}
	if !owned(h) {
		if !p.o.Force {
			p.note(g, ActDrift, it.agent, "", "%s edited since the last apply; kept as the user's, no longer managed", what)
			it.insert = it.cur // stays in the file, unrecorded
			return
		}
		fs.forcedBackup = true
	}
	fs.prune(it.agent, what)
	it.changed = true
}

// claimed reports whether removing the recorded item, whose content has
// digest h, rests on a committed record from elsewhere alone (see
// EntryState.claimed).
func (it *item) claimed(h string) bool {
	if it.krec != nil {
		return it.rec.Claim || it.krec.SHA256 != h
	}
	if it.sharers != nil {
		return it.sharedClaimed(h)
	}
	return it.rec.claimed(h)
}

// rewanted decides a recorded item that is still wanted: written when
// missing, actctl's own or forced; kept when edited by hand.
func (p *planner) rewanted(g *fileGroup, fs *fileState, it *item, what string, owned func(string) bool, equal func(a, b []byte) bool) {
	it.record = true
	switch {
	case !it.ok:
		it.insert, it.changed = it.want, true
		fs.touch(it.agent, what+" was missing")
	case equal(it.cur, it.want):
		it.insert = it.cur
	case owned(sum(it.cur)):
		it.insert, it.changed = it.want, true
		fs.touch(it.agent, "")
		p.backupClaimed(g, fs, it.agent, it.claimed(sum(it.cur)))
	case p.o.Force:
		it.insert, it.changed = it.want, true
		fs.forcedBackup = true
		fs.touch(it.agent, "forced over a hand edit of its "+what)
	case it.des != nil && it.des.Source != "":
		p.promptDrift(g, it, what)
		it.insert, it.drifted = it.cur, true
		fs.drifted = true
	default:
		p.note(g, ActDrift, it.agent, it.policy, "%s edited since the last apply; kept (use --force to overwrite it, with a backup)", what)
		it.insert, it.drifted = it.cur, true
		fs.drifted = true
	}
}

// wantedNew decides an item wanted and never written by actctl: what is
// there is the user's, unless another agent's record releases it in this
// plan (from: see released), which makes it actctl's to replace.
func (p *planner) wantedNew(g *fileGroup, fs *fileState, it *item, what string, from *item, equal func(a, b []byte) bool) {
	if it.ok && from != nil {
		// The released item comes out first (with its receipt, so the
		// user's original is back); this one is then set anew.
		it.insert, it.changed, it.record = it.want, true, true
		fs.touch(it.agent, what+" taken over from agent "+from.agent)
		return
	}
	if it.moved != nil {
		// The recorded keys above or below it come out first (the replay
		// removes every recorded key), leaving nothing of the user's at
		// its path: it is actctl's value that moved.
		it.insert, it.changed, it.record = it.want, true, true
		fs.touch(it.agent, what+" moved from key "+strings.Join(it.moved[0].key, "."))
		return
	}
	if it.ok && !equal(it.cur, it.want) {
		p.notOurs(g, fs, it, what)
		return
	}
	// Absent, or already exactly what apply would write (a fresh clone of
	// a repository that commits its materialized files, without
	// actant.owned): adopted. Nothing is written; prune leaves it as it
	// is (a key's receipt records its current text as the value to
	// restore; a block is marked adopted).
	it.insert, it.changed, it.record = it.want, true, true
	it.adopted = it.ok && it.key == nil
	if !it.ok {
		fs.touch(it.agent, "")
	}
}

// notOurs handles a block or key that holds content actctl has no record
// of writing (markers copied from elsewhere, an example in a code fence, a
// block or key kept as the user's when its agent was removed): it is the
// user's, never replaced — a conflict, unless workDirConflict says skip,
// or overwrite for a key (the user's value is restored on prune).
func (p *planner) notOurs(g *fileGroup, fs *fileState, it *item, what string) {
	switch {
	case it.policy == schema.ConflictSkip:
		p.note(g, ActSkip, it.agent, it.policy, "%s holds content actctl has no record of writing; left alone", what)
	case it.policy == schema.ConflictOverwrite && it.key != nil:
		it.insert, it.changed, it.record = it.want, true, true
		fs.touch(it.agent, "replaced the user's value of "+what+" (restored on prune)")
	case it.key != nil:
		p.note(g, ActConflict, it.agent, it.policy, "%s holds a value actctl has no record of writing, so it is yours and is not replaced: remove the key (or use workDirConflict \"overwrite\", which restores it on prune), then apply again", what)
	case it.name == block.Shared:
		p.note(g, ActConflict, it.agent, it.policy, "holds a block between \"BEGIN actctl\" and \"END actctl\" markers that actctl has no record of writing (a copy from elsewhere, or a block kept as yours), so it is yours and is not replaced: remove the block, then apply again")
	default:
		p.note(g, ActConflict, it.agent, it.policy, "holds a block between \"BEGIN actctl agent=%s\" and \"END actctl agent=%s\" markers that actctl has no record of writing (a copy from elsewhere, an example, or a block kept as yours when the agent was removed), so it is yours and is not replaced: remove the block or rename its markers, then apply again", it.agent, it.agent)
	}
}

// keys plans the managed keys of one structured file.
func (p *planner) keys(g *fileGroup, fs *fileState, des []desiredItem, recs []recordedItem, userFile bool) ([]newRecord, bool) {
	format := ""
	if len(des) > 0 {
		format = des[0].e.Format
	} else {
		format = recs[0].e.Format
	}
	kc, err := codecFor(format)
	if err != nil {
		p.note(g, ActConflict, "", "", "%v", err)
		return nil, false
	}
	items, ok := p.keyItems(g, fs, kc, des, recs)
	if !ok {
		return nil, false
	}
	receipts, ok := p.editKeys(g, fs, kc, items)
	if !ok {
		return nil, false
	}
	if !fs.present && len(fs.content) > 0 {
		fs.present = true
		if !g.fi.Exists {
			fs.created = true
		}
	}
	return keyRecords(items, receipts, format), true
}

// keyItems pairs the recorded keys (recs) with the desired ones (des),
// each with its current value in the file.
func (p *planner) keyItems(g *fileGroup, fs *fileState, kc keyCodec, des []desiredItem, recs []recordedItem) ([]*item, bool) {
	var items []*item
	get := func(it *item) bool {
		v, ok, err := kc.get(fs.content, it.key)
		if err != nil {
			p.note(g, ActConflict, it.agent, "", "cannot edit the file safely: %v", err)
			return false
		}
		it.cur, it.ok = v, ok
		return true
	}
	for i := range recs {
		r := &recs[i]
		for j := range r.e.Keys {
			k := &r.e.Keys[j]
			it := &item{agent: r.agent, dir: r.dir, rec: &r.e, krec: k, key: k.Path, frozen: r.frozen}
			if !get(it) {
				return nil, false
			}
			items = append(items, it)
		}
	}
	for i := range des {
		d := des[i]
		for _, k := range d.e.Keys {
			var it *item
			for _, x := range items {
				if x.agent == d.agent && !x.frozen && x.des == nil && slices.Equal(x.key, k.Path) {
					it = x
				}
			}
			if it == nil {
				it = &item{agent: d.agent, dir: d.dir, key: k.Path}
				if !get(it) {
					return nil, false
				}
				items = append(items, it)
			}
			it.des, it.policy, it.want, it.dir = d.e, d.policy, canonical(k.Value), d.dir
			it.wantRaw = sum(k.Value)
		}
	}
	return items, true
}

// editKeys decides every key and edits the file's content: in place when
// only new or changed keys are set, or, when a recorded key must go or be
// rewritten, by replaying: every recorded key removed (the last in the
// file first, with its receipt), then every kept one set again in order.
// It returns the receipts of the keys it set whose receipt the record
// takes.
func (p *planner) editKeys(g *fileGroup, fs *fileState, kc keyCodec, items []*item) (map[*item]json.RawMessage, bool) {
	replay := false
	for _, it := range items {
		if it.krec == nil && it.ok {
			it.moved = movedFree(kc, fs.content, items, it)
		}
		p.decide(g, fs, it, items, func(a, b []byte) bool { return bytes.Equal(canonical(a), canonical(b)) })
		if it.krec != nil && it.ok && (it.insert == nil || !it.record) {
			replay = true
		}
	}
	receipts, failed, err := editItems(fs, items, replay,
		func(it *item) bool { return it.krec != nil },
		// A new key (or one the user deleted): this Set's receipt is the
		// one that knows the user's document.
		func(it *item, _ json.RawMessage) bool { return it.krec == nil || !it.ok },
		func(c []byte, it *item) (int, bool) { return kc.offset(c, it.key) },
		func(c []byte, it *item) ([]byte, error) { return kc.del(c, it.key, it.krec.Receipt) },
		func(c []byte, it *item) ([]byte, json.RawMessage, error) { return kc.set(c, it.key, it.insert) })
	if err != nil {
		p.note(g, ActConflict, failed.agent, "", "cannot edit the file safely: %v", err)
		return nil, false
	}
	return receipts, true
}

// editItems edits fs.content for the decided items, blocks or keys alike,
// and returns what set reported for each item the record takes it from
// (a block's separator, a key's receipt); on failure, the item that
// failed and why.
//
// Without replay, only the changed items are set, in place (what set
// reports is taken where take holds). With replay (a recorded item comes
// out or is rewritten), every item recorded (by recorded) and present is
// removed with del, the last in the file first (by pos, where it stands
// in the content), and every item to keep is set again in that order,
// then the new ones. Set inserts after everything an item depends on (a
// block at the end of the file, a key at the end of its object or the
// file), so the last in the file is the last inserted of all an item
// could depend on: removing from the end is what makes every separator
// and receipt come off exactly, and needs no counter in the record.
func editItems[R any](fs *fileState, items []*item, replay bool,
	recorded func(*item) bool, take func(*item, R) bool, pos func(c []byte, it *item) (int, bool),
	del func(c []byte, it *item) ([]byte, error), set func(c []byte, it *item) ([]byte, R, error),
) (map[*item]R, *item, error) {
	got := map[*item]R{}
	if !replay {
		for _, it := range items {
			if !it.changed {
				continue
			}
			out, r, err := set(fs.content, it)
			if err != nil {
				return nil, it, err
			}
			fs.content = out
			if take(it, r) {
				got[it] = r
			}
		}
		return got, nil, nil
	}
	byPosition(fs.content, items, pos)
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if !recorded(it) || !it.ok || it.kept {
			continue
		}
		out, err := del(fs.content, it)
		if err != nil {
			return nil, it, err
		}
		fs.content = out
	}
	for _, it := range items {
		if it.insert == nil || it.kept {
			continue
		}
		out, r, err := set(fs.content, it)
		if err != nil {
			return nil, it, err
		}
		fs.content, got[it] = out, r
	}
	return got, nil, nil
}

// byPosition sorts items by where they stand in c (pos); those absent
// from it keep their order after them.
func byPosition(c []byte, items []*item, pos func(c []byte, it *item) (int, bool)) {
	at := make(map[*item]int, len(items))
	for _, it := range items {
		at[it] = math.MaxInt
		if it.ok {
			if off, ok := pos(c, it); ok {
				at[it] = off
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return at[items[i]] < at[items[j]] })
}

// keyRecords makes one record per agent, holding its keys in path order.
func keyRecords(items []*item, receipts map[*item]json.RawMessage, format string) []newRecord {
	byAgent := map[string]*newRecord{}
	var order []string
	for _, it := range items {
		if !it.record {
			continue
		}
		nr := byAgent[it.agent]
		if nr == nil {
			var e EntryState
			if it.rec != nil {
				e = *it.rec
			} else {
				e = EntryState{Mode: materialize.ModeKeys, Path: it.des.Path}
			}
			if it.des != nil {
				e.Path = it.des.Path
			}
			e.Format, e.Keys = format, nil
			nr = &newRecord{agent: it.agent, dir: it.dir, e: e}
			byAgent[it.agent] = nr
			order = append(order, it.agent)
		}
		if it.des != nil {
			nr.e.Claim = false // its agent wants it: confirmed
		}
		var k KeyState
		if it.krec != nil {
			k = *it.krec
		}
		k.Path = it.key
		if it.wantRaw != "" {
			k.Want = it.wantRaw
		}
		if !it.drifted {
			k.SHA256 = sum(canonical(it.insert))
		}
		if r, ok := receipts[it]; ok {
			k.Receipt = r
		}
		nr.e.Keys = append(nr.e.Keys, k)
	}
	var kept []newRecord
	for _, a := range order {
		nr := byAgent[a]
		sort.Slice(nr.e.Keys, func(i, j int) bool {
			return strings.Join(nr.e.Keys[i].Path, "\x00") < strings.Join(nr.e.Keys[j].Path, "\x00")
		})
		kept = append(kept, *nr)
	}
	return kept
}

// promptDrift notes a hand edit of a block whose text is one prompt of
// the config: it names where that text lives, and the two ways to settle
// it (docs/import.md, "Editing imported text").
func (p *planner) promptDrift(g *fileGroup, it *item, what string) {
	src := it.des.Source
	at := ""
	if p.o.Where != nil {
		if w := p.o.Where(src); w != "" {
			at = " at " + w
		}
	}
	p.note(g, ActDrift, it.agent, it.policy, "%s edited since the last apply; kept: its text is %s%s in the config; take this edit into the config with `actctl import --update`, or edit it there (--force overwrites the edit, with a backup)", what, src, at)
	p.plan.Notes[len(p.plan.Notes)-1].Source = src
}
