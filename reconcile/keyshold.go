package reconcile

import "github.com/actctl/actctl/materialize"

// KeysHold reports whether content, a file's bytes, still holds every
// key the entry e records, each with the value apply wrote (KeyState.SHA256
// of its canonical value), whatever else changed in the file: its other
// keys, its layout. With the desired keys those the entry records (the
// config unchanged since that apply, which found nothing drifted), the
// planner would then change nothing in it (see rewanted): what changed
// is someone else's, such as the runtime keys `actctl up` writes in an
// instance's .actant.json (package runrecord). False for an entry of
// another mode, a claimed one, or a file that does not parse.
func KeysHold(content []byte, e EntryState) bool {
	if e.Mode != materialize.ModeKeys || e.Claim || len(e.Keys) == 0 {
		return false
	}
	kc, err := codecFor(e.Format)
	if err != nil {
		return false
	}
	for _, k := range e.Keys {
		v, ok, err := kc.get(content, k.Path)
		if err != nil || !ok || sum(v) != k.SHA256 {
			return false
		}
	}
	return true
}
