package materialize

import (
	"errors"
	"path"
	"strings"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/model"
)

// Reasons a rendered path is refused. They are sentinel errors so tests and
// callers can tell a hostile layout from other render failures.
var (
	ErrPathEmpty     = errors.New("path is empty")
	ErrPathAbsolute  = errors.New("path is absolute")
	ErrPathBackslash = errors.New("path contains a backslash")
	ErrPathSegment   = errors.New("path has an empty, '.' or '..' segment")
	ErrPathReserved  = errors.New("path is inside a directory actctl reserves (.git or .actant)")
	ErrPathControl   = errors.New("path contains a control character")
)

// checkRel reports whether p may be used as an Entry.Path: relative,
// clean, slash-separated and unable to leave the workspace directory.
//
// The check is done on the raw string, before any cleaning, because
// path.Clean would silently turn "a/../../x" into "../x" or ".claude//x"
// into ".claude/x": a layout that needs cleaning is a layout we do not
// understand, so it is refused rather than guessed at. Paths come from
// user- or hub-defined backends and hub skills, which are untrusted.
func checkRel(p string) error {
	if p == "" {
		return ErrPathEmpty
	}
	if strings.ContainsRune(p, '\\') {
		return ErrPathBackslash
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return ErrPathControl
		}
	}
	// A drive letter ("C:...") is absolute on Windows; refuse it everywhere
	// so a config behaves the same on every OS.
	if path.IsAbs(p) || (len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0])) {
		return ErrPathAbsolute
	}
	first := true
	for rest := p; ; {
		seg, tail, more := strings.Cut(rest, "/")
		switch seg {
		case "", ".", "..":
			return ErrPathSegment
		case ".git":
			return ErrPathReserved
		case layout.Dir:
			// .actant/ holds the reconciler's state, lock and backups.
			if first {
				return ErrPathReserved
			}
		}
		if !more {
			return nil
		}
		first, rest = false, tail
	}
}

func isASCIILetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

// joinRel appends name (one or more slash-separated segments) to a layout
// directory. A single trailing slash on dir is tolerated ("x/" is how many
// people write a directory); "" and "." mean the workspace root. The result
// is not cleaned: checkRel judges it as written.
func joinRel(dir, name string) string {
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// diskName is model.DiskName, the file-system name of a component. Two
// references that map to the same disk name are a render error (see
// addFile).
func diskName(ref string) string { return model.DiskName(ref) }
