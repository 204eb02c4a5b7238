package materialize

import (
	"slices"
	"strings"
)

// fillVars replaces every {{name}} (spaces inside the braces allowed) whose
// name is in vars. Unknown names are left in place — a visible placeholder
// is easier to spot than a silently empty string — and returned, in order
// of first appearance, so the caller can warn about them.
//
// Only identifier-like names ([A-Za-z_][A-Za-z0-9_.-]*) are treated as
// variables: "{{ .Field }}", "{{#each}}" and other template syntaxes that a
// skill may legitimately document are left alone without a warning.
//
// It is a hand-written scanner rather than a regexp because it runs over
// every prompt and skill of every agent (20k skills in the 1000-agent
// benchmark) and most texts contain no placeholder at all.
func fillVars(s string, vars map[string]string) (string, []string) {
	i := strings.Index(s, "{{")
	if i < 0 {
		return s, nil
	}
	var b strings.Builder
	var missing []string
	b.Grow(len(s))
	for i >= 0 {
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			break
		}
		name := strings.TrimSpace(s[i+2 : i+2+j])
		end := i + 2 + j + 2
		if !isVarName(name) {
			// Step one brace only, so "{{{a}}}" still finds "{{a}}".
			b.WriteString(s[:i+1])
			s = s[i+1:]
			i = strings.Index(s, "{{")
			continue
		}
		b.WriteString(s[:i])
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i:end])
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
		s = s[end:]
		i = strings.Index(s, "{{")
	}
	b.WriteString(s)
	return b.String(), missing
}

func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case i > 0 && ((r >= '0' && r <= '9') || r == '.' || r == '-'):
		default:
			return false
		}
	}
	return true
}

// joinParagraphs joins non-empty texts with one blank line between them,
// trimming surrounding blank lines of each, and ends with a newline.
func joinParagraphs(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.Trim(p, "\r\n")
		if strings.TrimSpace(p) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteByte('\n')
	return b.String()
}

// firstLine returns the first non-empty line of s without Markdown heading
// marks; used as a description when a component has none, because Agent
// Skills and Claude sub-agents require a non-empty description.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" {
			return line
		}
	}
	return ""
}
