// Package block edits one actctl-managed block inside a text file the user
// also edits (CLAUDE.md, AGENTS.md, GEMINI.md, .gitignore; README, "What
// apply writes").
//
// A block is a BEGIN marker line, a body, and an END marker line:
//
//	<!-- BEGIN actctl agent=NAME -->      (style "html", for Markdown)
//	...body...
//	<!-- END actctl agent=NAME -->
//
//	# BEGIN actctl agent=NAME              (style "hash", for .gitignore)
//	...body...
//	# END actctl agent=NAME
//
// Every function here is pure (bytes in, bytes out) and leaves every byte
// outside the block exactly as it was, including CRLF line endings and a
// missing final newline. Upsert reports the separator it had to insert so
// that Remove can take exactly that separator away again: for content c
// without the block, Remove(Upsert(c)) == c byte for byte, even after the
// user edited text before the block or added text after it.
package block

import (
	"bytes"
	"fmt"
	"unicode"
)

// Comment styles, equal to materialize.StyleHTML and materialize.StyleHash
// (repeated here so this package stays free of dependencies).
const (
	// StyleHTML uses HTML comments, invisible when Markdown is rendered.
	StyleHTML = "html"
	// StyleHash uses '#' line comments, for .gitignore-like files.
	StyleHash = "hash"
)

// Shared names the one block of a file that belongs to the file rather than
// to one agent (the .gitignore block every agent writing into a directory
// shares, docs/design.md): its markers carry no agent name
// ("# BEGIN actctl" ... "# END actctl"). No agent can have this name.
const Shared = "*"

// Markers returns the BEGIN and END marker lines (without line endings) for
// the named block (Shared: the file's own block). It rejects names that could not be found again reliably:
// empty names, names with whitespace or control characters (the marker must
// stay one token), and names containing "-->" (it would close the HTML
// comment early).
func Markers(name, style string) (begin, end string, err error) {
	if name == "" {
		return "", "", fmt.Errorf("block: empty name")
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return "", "", fmt.Errorf("block %q: name contains whitespace or control characters", name)
		}
	}
	tag := " agent=" + name
	if name == Shared {
		tag = ""
	}
	switch style {
	case StyleHTML:
		if bytes.Contains([]byte(name), []byte("-->")) {
			return "", "", fmt.Errorf("block %q: name contains \"-->\"", name)
		}
		return "<!-- BEGIN actctl" + tag + " -->", "<!-- END actctl" + tag + " -->", nil
	case StyleHash:
		return "# BEGIN actctl" + tag, "# END actctl" + tag, nil
	default:
		return "", "", fmt.Errorf("block %q: unknown style %q (want %q or %q)", name, style, StyleHTML, StyleHash)
	}
}

// span locates a block: byte offsets of the BEGIN line start, the body start
// (just after the BEGIN line's terminator), the END line start, and the end
// of the END line including its terminator (or end of content).
type span struct {
	beginStart, bodyStart, endStart, endEnd int
}

// locate finds the named block. Marker lines match after trimming spaces,
// tabs and a trailing '\r', so an indented marker or a CRLF file still
// matches. A second block, a BEGIN without END, or an END without BEGIN is an
// error naming the 1-based line, because guessing would risk editing the
// user's text.
func locate(content []byte, begin, end string) (span, bool, error) {
	var sp span
	state := 0 // 0: before block, 1: inside, 2: after
	beginLine := 0
	line := 0
	for off := 0; off < len(content); {
		line++
		next := len(content)
		if i := bytes.IndexByte(content[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		text := string(bytes.Trim(content[off:next], " \t\r\n"))
		switch text {
		case begin:
			switch state {
			case 0:
				sp.beginStart, sp.bodyStart = off, next
				beginLine = line
				state = 1
			case 1:
				return span{}, false, fmt.Errorf("line %d: second %q before the END of the block opened at line %d", line, begin, beginLine)
			default:
				return span{}, false, fmt.Errorf("line %d: duplicated block %q (first at line %d)", line, begin, beginLine)
			}
		case end:
			switch state {
			case 0:
				return span{}, false, fmt.Errorf("line %d: %q without a preceding BEGIN", line, end)
			case 1:
				sp.endStart, sp.endEnd = off, next
				state = 2
			default:
				return span{}, false, fmt.Errorf("line %d: %q without a preceding BEGIN (block already closed)", line, end)
			}
		}
		off = next
	}
	if state == 1 {
		return span{}, false, fmt.Errorf("line %d: %q without a matching END", beginLine, begin)
	}
	return sp, state == 2, nil
}

// eol returns the line ending of an existing block: that of its BEGIN line,
// which Upsert wrote. Using it (rather than the file's first line) keeps a
// second Upsert with the same body a no-op even in files with mixed endings.
func (sp span) eol(content []byte) []byte {
	if sp.bodyStart >= 2 && content[sp.bodyStart-2] == '\r' {
		return []byte("\r\n")
	}
	return []byte("\n")
}

// eol returns the file's line ending: "\r\n" if its first line ends that
// way, else "\n" (also for content without any line ending).
func eol(content []byte) []byte {
	if i := bytes.IndexByte(content, '\n'); i > 0 && content[i-1] == '\r' {
		return []byte("\r\n")
	}
	return []byte("\n")
}

// Find returns the body of the named block (the bytes between the marker
// lines). In a block whose BEGIN line ends in CRLF the body's CRLF endings are reported as "\n", the
// form Upsert accepts, so that Find(Upsert(c, b)) == b and drift checks
// compare like with like. ok is false if the block is absent; err reports
// malformed markers with their line number.
func Find(content []byte, name, style string) (body []byte, ok bool, err error) {
	begin, end, err := Markers(name, style)
	if err != nil {
		return nil, false, err
	}
	sp, ok, err := locate(content, begin, end)
	if err != nil {
		return nil, false, fmt.Errorf("block %s: %w", name, err)
	}
	if !ok {
		return nil, false, nil
	}
	body = bytes.Clone(content[sp.bodyStart:sp.endStart])
	if bytes.Equal(sp.eol(content), []byte("\r\n")) {
		body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	}
	return body, true, nil
}

// normalizeBody makes body end with a line ending and use the file's line
// ending throughout, and refuses a body that contains this block's own
// marker lines (the file would no longer parse).
func normalizeBody(body []byte, begin, end string, nl []byte) ([]byte, error) {
	b := bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	for line := range bytes.Lines(b) {
		t := string(bytes.Trim(line, " \t\r\n"))
		if t == begin || t == end {
			return nil, fmt.Errorf("body contains the marker line %q", t)
		}
	}
	if len(nl) == 2 {
		b = bytes.ReplaceAll(b, []byte("\n"), nl)
	}
	return b, nil
}

// Upsert writes body into the named block. If the block exists only its body
// changes (the marker lines, and everything outside, stay byte-identical) and
// sep is nil. Otherwise the block is appended at the end and sep is the
// exact separator inserted before the BEGIN line: "" for empty content, one
// line ending if content ends with one (leaving a blank line), two if it
// does not. The caller records sep and hands it to Remove. body gets a final
// line ending if it lacks one and takes the file's line ending (CRLF files
// stay CRLF).
func Upsert(content []byte, name, style string, body []byte) (out, sep []byte, err error) {
	begin, end, err := Markers(name, style)
	if err != nil {
		return nil, nil, err
	}
	sp, ok, err := locate(content, begin, end)
	if err != nil {
		return nil, nil, fmt.Errorf("block %s: %w", name, err)
	}
	nl := eol(content)
	if ok {
		nl = sp.eol(content)
	}
	b, err := normalizeBody(body, begin, end, nl)
	if err != nil {
		return nil, nil, fmt.Errorf("block %s: %w", name, err)
	}
	if ok {
		out = make([]byte, 0, len(content)-(sp.endStart-sp.bodyStart)+len(b))
		out = append(out, content[:sp.bodyStart]...)
		if sp.bodyStart == len(content) || content[sp.bodyStart-1] != '\n' {
			// Impossible for a located block (BEGIN ends with a newline when
			// an END follows), kept as a guard.
			return nil, nil, fmt.Errorf("block %s: BEGIN marker is not terminated", name)
		}
		out = append(out, b...)
		out = append(out, content[sp.endStart:]...)
		return out, nil, nil
	}
	switch {
	case len(content) == 0:
		sep = []byte{}
	case content[len(content)-1] == '\n':
		sep = bytes.Clone(nl)
	default:
		sep = append(bytes.Clone(nl), nl...)
	}
	out = make([]byte, 0, len(content)+len(sep)+len(begin)+len(end)+len(b)+4)
	out = append(out, content...)
	out = append(out, sep...)
	out = append(out, begin...)
	out = append(out, nl...)
	out = append(out, b...)
	out = append(out, end...)
	out = append(out, nl...)
	return out, sep, nil
}

// Remove deletes the named block: both marker lines (the END line with its
// line ending) and the body. If the bytes just before the BEGIN line are sep
// (as returned by Upsert), they are removed too, but only when that cannot
// eat a line ending the user's text needs: the text before sep must itself
// end a line, or sep must hold two line endings (the file had no final
// newline before Upsert), or sep must be everything before the block. A sep
// of line endings matches the same number of line endings of either kind,
// so a file converted between LF and CRLF since Upsert loses exactly its
// separator. A block the user moved to the start or middle of the file is
// removed the same way. Content without the block is returned unchanged.
func Remove(content []byte, name, style string, sep []byte) ([]byte, error) {
	begin, end, err := Markers(name, style)
	if err != nil {
		return nil, err
	}
	sp, ok, err := locate(content, begin, end)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", name, err)
	}
	if !ok {
		return content, nil
	}
	prefix := content[:sp.beginStart]
	prefix = prefix[:len(prefix)-sepLen(prefix, sep)]
	out := make([]byte, 0, len(prefix)+len(content)-sp.endEnd)
	out = append(out, prefix...)
	out = append(out, content[sp.endEnd:]...)
	return out, nil
}

// sepLen returns how many bytes at the end of prefix are sep and may be
// removed (0 when none): sep itself, or, when the file's line endings
// were converted since, as many line endings of either kind.
func sepLen(prefix, sep []byte) int {
	if len(sep) == 0 {
		return 0
	}
	lines := bytes.Count(sep, []byte("\n"))
	// The text before sep must end a line, unless sep is two line endings
	// or all there is.
	mayStrip := func(n int) bool {
		rest := prefix[:len(prefix)-n]
		return len(rest) == 0 || lines >= 2 || rest[len(rest)-1] == '\n'
	}
	if bytes.HasSuffix(prefix, sep) && mayStrip(len(sep)) {
		return len(sep)
	}
	if newlines(sep) != lines {
		return 0
	}
	n := 0
	for range lines {
		switch {
		case bytes.HasSuffix(prefix[:len(prefix)-n], []byte("\r\n")):
			n += 2
		case bytes.HasSuffix(prefix[:len(prefix)-n], []byte("\n")):
			n++
		default:
			return 0
		}
	}
	if mayStrip(n) {
		return n
	}
	return 0
}

// newlines returns the number of line endings ("\n" or "\r\n") s is made
// of, or -1 when s holds anything else.
func newlines(s []byte) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\n':
		case s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n':
			i++
		default:
			return -1
		}
		n++
	}
	return n
}

// Rename gives the block named from the name to, in place: its two marker
// lines are rewritten (their indentation and line endings kept), its body
// and everything outside stay byte for byte. It fails when from's block is
// absent or malformed, or when to already has a block in content.
func Rename(content []byte, from, to, style string) ([]byte, error) {
	fb, fe, err := Markers(from, style)
	if err != nil {
		return nil, err
	}
	tb, te, err := Markers(to, style)
	if err != nil {
		return nil, err
	}
	if _, ok, err := locate(content, tb, te); err != nil || ok {
		if err == nil {
			err = fmt.Errorf("already in the file")
		}
		return nil, fmt.Errorf("block %s: %w", to, err)
	}
	sp, ok, err := locate(content, fb, fe)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", from, err)
	}
	if !ok {
		return nil, fmt.Errorf("block %s: not in the file", from)
	}
	out := make([]byte, 0, len(content)+2*(len(to)-len(from)))
	out = append(out, content[:sp.beginStart]...)
	out = append(out, bytes.Replace(content[sp.beginStart:sp.bodyStart], []byte(fb), []byte(tb), 1)...)
	out = append(out, content[sp.bodyStart:sp.endStart]...)
	out = append(out, bytes.Replace(content[sp.endStart:sp.endEnd], []byte(fe), []byte(te), 1)...)
	out = append(out, content[sp.endEnd:]...)
	return out, nil
}
