package reconcile

import (
	"bufio"
	"bytes"
	"os"
	"strings"
)

// userText is materialize.Options.UserText on the disk: whether the file
// at p holds text outside actctl's blocks (any non-blank line that is not
// between a BEGIN actctl and its END marker). A missing or unreadable
// file holds none. It only reads, so the renderer may call it from many
// goroutines.
func userText(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	inBlock := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "<!-- BEGIN actctl "):
			inBlock = true
		case strings.HasPrefix(line, "<!-- END actctl "):
			inBlock = false
		case !inBlock && line != "":
			return true
		}
	}
	return false
}
