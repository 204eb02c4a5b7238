package tasklog

import (
	"bytes"

	"github.com/actctl/actctl/model"
)

// lastTail is how much of the end of actctl.log Last reads: a summary
// line is far shorter (its prompt is cut to PromptMax).
const lastTail = 16 << 10

// Last returns the last task summary of the logs directory dir, read from
// the end of its actctl.log (a dashboard card is drawn for every agent on
// every page); nil when there is none or it cannot be read.
func Last(dir string) *Summary {
	f, err := model.OpenRegular(SummaryPath(dir))
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	off := max(fi.Size()-lastTail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil
	}
	lines := completeLines(buf)
	for i := len(lines) - 1; i >= 0; i-- {
		if s, err := ParseSummary(bytes.TrimSpace(lines[i])); err == nil {
			return &s
		}
	}
	return nil
}
