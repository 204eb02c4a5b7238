package reconcile

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"
)

// notText says why data cannot take a managed block, or "" when it can:
// blocks are UTF-8 text, and appending them to a UTF-16 or binary file
// would leave it in two encodings at once (README, "What apply writes").
// A UTF-8 byte order mark is fine.
func notText(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0, 0}):
		return "it starts with a UTF-32LE byte order mark"
	case bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}):
		return "it starts with a UTF-32BE byte order mark"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return "it starts with a UTF-16LE byte order mark"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return "it starts with a UTF-16BE byte order mark"
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Sprintf("it has a NUL byte at offset %d (binary, or UTF-16 without a byte order mark)", i)
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return fmt.Sprintf("it has invalid UTF-8 at offset %d", i)
	}
	return ""
}

// refuseNonText notes a conflict, for every agent with a block in g, when
// the file is not UTF-8 text, and reports whether it did. Frozen records
// alone (agents outside this run) change nothing, so they are not checked.
func (p *planner) refuseNonText(g *fileGroup, fs *fileState, des []desiredItem, recs []recordedItem) bool {
	if !fs.present || len(fs.content) == 0 {
		return false
	}
	var agents []string
	for _, d := range des {
		agents = append(agents, d.agent)
	}
	for _, r := range recs {
		if !r.frozen && !slices.Contains(agents, r.agent) {
			agents = append(agents, r.agent)
		}
	}
	if len(agents) == 0 {
		return false
	}
	why := notText(fs.content)
	if why == "" {
		return false
	}
	for _, a := range agents {
		p.note(g, ActConflict, a, "", "not UTF-8 text: %s; actctl writes blocks only into UTF-8 text (convert the file to UTF-8)", why)
	}
	return true
}
