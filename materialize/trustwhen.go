package materialize

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// noteApplies reports whether the trust note of gate path p is due:
// always, unless the gate has a condition (tr.When[p]); then only when a
// file rendered under p sets the condition's key to one of its values
// (Claude's note on the permission modes it drops, not for plan).
func (rd *renderer) noteApplies(tr *schema.Trust, p string) bool {
	w, ok := tr.When[p]
	if !ok {
		return true
	}
	for i := range rd.slots {
		e := &rd.slots[i].e
		if e.Path != p && !strings.HasPrefix(e.Path, p) {
			continue
		}
		for _, k := range e.Keys {
			var v string
			if slices.Equal(k.Path, w.Key) && json.Unmarshal(k.Value, &v) == nil && slices.Contains(w.Values, v) {
				return true
			}
		}
	}
	return false
}
