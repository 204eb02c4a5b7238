package reconcile

import "strings"

// prunedItem is one thing a pruned agent no longer manages in a file: a
// key ("key a.b"), its block ("block") or the whole file ("file").
type prunedItem struct{ agent, what string }

// prune records that agent no longer manages what in the file: the file's
// reason says so once, without repeating the agent the line already names
// (pruneReason).
func (fs *fileState) prune(agent, what string) {
	fs.touch(agent, "")
	fs.pruned = append(fs.pruned, prunedItem{agent, what})
}

// pruneReason is the reason a file's line gives for what pruned agents no
// longer manage: "no longer managed: keys a, b" when the line names one
// agent, "no longer managed: cu's block, cx's keys a, b" when it names
// more (the others may still manage their part).
func pruneReason(agents []string, pruned []prunedItem) string {
	if len(pruned) == 0 {
		return ""
	}
	var order []string
	byAgent := map[string][]string{}
	for _, p := range pruned {
		if _, ok := byAgent[p.agent]; !ok {
			order = append(order, p.agent)
		}
		byAgent[p.agent] = append(byAgent[p.agent], p.what)
	}
	var parts []string
	for _, a := range order {
		part := joinPruned(byAgent[a])
		if len(agents) > 1 {
			part = a + "'s " + part
		}
		parts = append(parts, part)
	}
	return "no longer managed: " + strings.Join(parts, ", ")
}

// joinPruned joins one agent's items, the keys as one "keys a, b".
func joinPruned(whats []string) string {
	var keys, other []string
	for _, w := range whats {
		if k, ok := strings.CutPrefix(w, "key "); ok {
			keys = append(keys, k)
		} else {
			other = append(other, w)
		}
	}
	switch len(keys) {
	case 0:
	case 1:
		other = append(other, "key "+keys[0])
	default:
		other = append(other, "keys "+strings.Join(keys, ", "))
	}
	return strings.Join(other, ", ")
}
