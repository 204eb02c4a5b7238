// Package termsafe escapes control characters in text that came from an
// agent (or anything else actctl does not control) before actctl prints
// it, so that the text cannot move the cursor, rewrite a line, retitle
// the window or forge a question: docs/run.md, "Output". Escaped are the
// C0 controls and DEL, the C1 controls (U+0080-U+009F, which some
// terminals take as escape sequences), the Unicode line and paragraph
// separators, the bidirectional formatting characters that reorder what
// is shown, and bytes that are not UTF-8. They are written as Go escapes:
// \x1b, \r, \u202e, \xff. Backslashes are left as they are.
package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s escaped for one line of output: newlines and tabs are escaped
// too (a tool's title, a kind, a plan entry, a stop reason).
func Line(s string) string { return escape(s, false) }

// Text is s escaped for text of several lines (the agent's message, an
// error message): newlines and tabs are kept, a carriage return before a
// newline is dropped, every other control character escaped.
func Text(s string) string { return escape(s, true) }

func escape(s string, text bool) string {
	if clean(s, text) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case text && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case text && r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		case unsafe(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

const hex = "0123456789abcdef"

// clean reports whether s needs no escaping (the common case, checked
// without allocating).
func clean(s string, text bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(text && (c == '\n' || c == '\t')) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

// unsafe reports whether r is shown escaped.
func unsafe(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}

func writeEscape(b *strings.Builder, r rune) {
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		if r < 0x80 {
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
			return
		}
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[(r>>shift)&0xf])
		}
	}
}
