package reconcile

import (
	"bytes"
	"fmt"

	"github.com/actctl/actctl/internal/block"
)

// renameBlocks moves blocks across an agent's rename (Terraform's
// "moved"; docs/formats.md, "Renaming an agent"): when a removed agent's
// block and a new agent's block meet in one file, the new agent takes the
// old block over in place (its markers renamed, its position, body and
// record kept, an adopted block staying adopted) instead of the old block
// being pruned or kept and a second copy appended. A pair is one removed
// and one new block of the file in the same style, or, among several, the
// removed block whose body is exactly the new one's. It returns items
// without the new agents' items it merged.
func (p *planner) renameBlocks(fs *fileState, items []*item) []*item {
	var gone, fresh []*item
	for _, it := range items {
		switch {
		case it.sharers != nil || it.frozen || it.key != nil:
		case it.rec != nil && it.des == nil && it.ok && !p.declared[it.agent]:
			gone = append(gone, it)
		case it.rec == nil && it.des != nil && !it.ok:
			fresh = append(fresh, it)
		}
	}
	merged := map[*item]bool{}
	for _, n := range fresh {
		o := renamedFrom(gone, n, len(gone) == 1 && len(fresh) == 1)
		if o == nil {
			continue
		}
		c, err := block.Rename(fs.content, o.name, n.name, o.rec.Style)
		if err != nil {
			continue // left to the usual prune and insert
		}
		from := o.agent
		fs.content = c
		o.agent, o.name, o.dir = n.agent, n.name, n.dir
		o.des, o.policy, o.want = n.des, n.policy, n.want
		fs.touch(n.agent, fmt.Sprintf("the block of removed agent %q is now agent %q's, in place", from, n.agent))
		gone = deleteItem(gone, o)
		merged[n] = true
	}
	out := items[:0]
	for _, it := range items {
		if !merged[it] {
			out = append(out, it)
		}
	}
	return out
}

// renamedFrom is the removed block n takes over: the only one (alone),
// else the one whose body is n's wanted body, when exactly one is.
func renamedFrom(gone []*item, n *item, alone bool) *item {
	var match *item
	for _, o := range gone {
		if o.rec.Style != n.des.Style {
			continue
		}
		if alone {
			return o
		}
		if bytes.Equal(normBody(o.cur), n.want) {
			if match != nil {
				return nil
			}
			match = o
		}
	}
	return match
}

// deleteItem returns items without it.
func deleteItem(items []*item, it *item) []*item {
	for i, x := range items {
		if x == it {
			return append(items[:i:i], items[i+1:]...)
		}
	}
	return items
}
