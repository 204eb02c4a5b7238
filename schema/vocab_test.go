package schema

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLaunchModesMatchCUE: LaunchModes, the Go side's one list of launch
// modes, is exactly the CUE schema's #LaunchMode, in its order.
func TestLaunchModesMatchCUE(t *testing.T) {
	m := regexp.MustCompile(`(?m)^#LaunchMode:\s*(.+)$`).FindStringSubmatch(string(Source))
	if m == nil {
		t.Fatal("actant.cue has no #LaunchMode line")
	}
	var cue []string
	for _, alt := range strings.Split(m[1], "|") {
		cue = append(cue, strings.Trim(strings.TrimSpace(alt), `"`))
	}
	if !slices.Equal(cue, LaunchModes) {
		t.Errorf("#LaunchMode is %q; LaunchModes is %q", cue, LaunchModes)
	}
}
