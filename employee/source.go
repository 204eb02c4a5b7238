package employee

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/actctl/actctl/internal/cronspec"
	"github.com/actctl/actctl/schedule"
)

// UsageError is a source the command line got wrong (exit 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, args ...any) error { return &UsageError{fmt.Errorf(format, args...)} }

// SourceManual is the source of a task whose prompt came from the command
// line (-p, --prompt-file).
const SourceManual = "manual"

// Pick returns the task that source names in the agent's schedule spec:
// "heartbeat" (the fixed heartbeat prompt), "cron:N" or "cron[N]" (entry
// N's prompt), "manual" (text, which must be given). An empty source is
// manual when text is given, else the heartbeat when the agent has one.
// Anything else is a *UsageError naming the choices.
func Pick(spec *cronspec.Spec, source, text string) (schedule.Task, error) {
	if spec == nil {
		spec = &cronspec.Spec{}
	}
	if source == "" {
		switch {
		case text != "":
			source = SourceManual
		case spec.Heartbeat != nil:
			source = "heartbeat"
		default:
			return schedule.Task{}, usage("no task to run: the agent has no heartbeat; give --source %s", choices(spec))
		}
	}
	if text != "" && source != SourceManual {
		return schedule.Task{}, usage("-p and --prompt-file make a manual task: drop --source %s", source)
	}
	switch {
	case source == SourceManual:
		if strings.TrimSpace(text) == "" {
			return schedule.Task{}, usage("--source manual needs a prompt: give -p TEXT or --prompt-file F")
		}
		return schedule.Task{Kind: schedule.KindPrompt, Prompt: text, Source: SourceManual}, nil
	case source == "heartbeat":
		if spec.Heartbeat == nil {
			return schedule.Task{}, usage("--source heartbeat: the agent has no heartbeat; give --source %s", choices(spec))
		}
		return schedule.Task{Kind: schedule.KindHeartbeat, Prompt: schedule.HeartbeatPrompt, Source: "heartbeat"}, nil
	}
	i, err := cronIndex(source)
	if err != nil {
		return schedule.Task{}, usage("--source %s: %v; give --source %s", source, err, choices(spec))
	}
	if i >= len(spec.Cron) {
		return schedule.Task{}, usage("--source %s: the agent has %s; give --source %s", source, cronCount(len(spec.Cron)), choices(spec))
	}
	return cronTask(spec, i), nil
}

func cronTask(spec *cronspec.Spec, i int) schedule.Task {
	return schedule.Task{Kind: schedule.KindCron, Prompt: spec.Cron[i].Prompt, Source: fmt.Sprintf("cron[%d]", i)}
}

// cronCount says how many cron entries there are, in words.
func cronCount(n int) string {
	switch n {
	case 0:
		return "no cron entries"
	case 1:
		return "1 cron entry"
	}
	return fmt.Sprintf("%d cron entries", n)
}

// cronIndex reads N of "cron:N" or "cron[N]".
func cronIndex(source string) (int, error) {
	var n string
	switch {
	case strings.HasPrefix(source, "cron:"):
		n = source[len("cron:"):]
	case strings.HasPrefix(source, "cron[") && strings.HasSuffix(source, "]"):
		n = source[len("cron[") : len(source)-1]
	default:
		return 0, errors.New("unknown source")
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%q is no cron entry index (0, 1, ...)", n)
	}
	return i, nil
}

// choices lists the sources an agent offers, for messages.
func choices(spec *cronspec.Spec) string {
	var c []string
	if spec.Heartbeat != nil {
		c = append(c, "heartbeat")
	}
	for i := range spec.Cron {
		c = append(c, fmt.Sprintf("cron:%d", i))
	}
	c = append(c, SourceManual+" (with -p TEXT)")
	return strings.Join(c, " | ")
}

// BySchedule maps the string of a CI's "which schedule fired"
// (GitHub's github.event.schedule) back to its source: the first cron
// entry whose pattern fires at the same times ("0 9 * * 0" is "0 9 * * 7",
// "0 0 * * 0" is "@weekly"), else "heartbeat" when the pattern is the
// heartbeat's interval on the clock (cronspec.HeartbeatPattern: "*/30 *
// * * *" for 30m). No match is a *UsageError listing the entries.
func BySchedule(spec *cronspec.Spec, pattern string) (string, error) {
	if spec == nil {
		spec = &cronspec.Spec{}
	}
	p, err := cronspec.ParseCron(pattern, "UTC")
	if err != nil {
		return "", usage("--schedule: %v", err)
	}
	for i, c := range spec.Cron {
		if c.Same(p) {
			return fmt.Sprintf("cron:%d", i), nil
		}
	}
	if h := spec.Heartbeat; h != nil {
		if hp, ok := cronspec.HeartbeatPattern(h.Interval); ok {
			if hc, err := cronspec.ParseCron(hp, "UTC"); err == nil && hc.Same(p) {
				return "heartbeat", nil
			}
		}
	}
	return "", usage("--schedule %q matches none of the agent's schedule entries: %s", pattern, entries(spec))
}

// entries lists an agent's schedule entries with their patterns.
func entries(spec *cronspec.Spec) string {
	var e []string
	if h := spec.Heartbeat; h != nil {
		hp, ok := cronspec.HeartbeatPattern(h.Interval)
		if !ok {
			hp = "no cron pattern"
		}
		e = append(e, fmt.Sprintf("heartbeat every %s (%s)", h.Interval, hp))
	}
	for i, c := range spec.Cron {
		e = append(e, fmt.Sprintf("cron:%d %q", i, c.Pattern))
	}
	if len(e) == 0 {
		return "it has none"
	}
	return strings.Join(e, ", ")
}
