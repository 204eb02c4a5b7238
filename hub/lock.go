package hub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/schema"
)

// LockFile is the lock's name at the workspace root; it is meant to be
// committed beside actant.cue.
const LockFile = "actant.lock"

// lockVersion is the format version written in the lock.
const lockVersion = 1

// Lock pins every hub source. Its JSON form is deterministic (map keys
// sorted, times in UTC seconds) so it diffs cleanly in git.
type Lock struct {
	Version int                     `json:"version"`
	Sources map[string]LockedSource `json:"sources"`
}

// LockedSource is one source as resolved. URL, Ref and Path repeat the
// config so a changed source is recognised and re-resolved; credentials are
// never part of it (a password in the URL is removed).
type LockedSource struct {
	URL  string      `json:"url"`
	Ref  *schema.Ref `json:"ref,omitempty"`
	Path string      `json:"path,omitempty"`
	// Resolved is the reference the ref resolved to (refs/tags/v1.4.0 for
	// a semver ref); empty for a commit ref.
	Resolved string `json:"resolved,omitempty"`
	// Commit is the full commit hash; annotated tags are peeled.
	Commit string `json:"commit"`
	// Digest is the sha256 of the component tree (see digestOf).
	Digest   string    `json:"digest"`
	LockedAt time.Time `json:"lockedAt"`
}

// ReadLock reads the lock at path; a missing file is (nil, nil).
func ReadLock(p string) (*Lock, error) {
	b, err := schema.ReadRegular(p, 0)
	if isNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("read %s: %w (fix it, or delete it and run `actctl hub sync`)", p, err)
	}
	if l.Version != lockVersion {
		return nil, fmt.Errorf("read %s: lock format version %d is not supported (want %d)", p, l.Version, lockVersion)
	}
	if l.Sources == nil {
		l.Sources = map[string]LockedSource{}
	}
	for name, s := range l.Sources {
		if len(s.Commit) != 40 || strings.Trim(s.Commit, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("read %s: source %q: commit %q is not a full 40-hex commit hash", p, name, s.Commit)
		}
	}
	return &l, nil
}

// Marshal renders the lock in its canonical form.
func (l *Lock) Marshal() []byte {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		panic(err) // only plain data: cannot fail
	}
	return append(b, '\n')
}

// Write replaces the lock at path atomically.
func (l *Lock) Write(p string) error {
	if err := atomicfile.Write(p, l.Marshal(), 0o644); err != nil {
		return fmt.Errorf("write lock: %w", err)
	}
	return nil
}

// matches reports whether the locked entry was made for src as configured
// now; a changed url, ref or path means the entry is stale.
func (s LockedSource) matches(src schema.HubSource) bool {
	return s.URL == redactURL(src.URL) && refEqual(s.Ref, src.Ref) && cleanSub(s.Path) == cleanSub(src.Path)
}

// cleanSub normalizes a source's sub-directory ("", ".", "./hub/" -> "", "hub").
func cleanSub(p string) string {
	if p == "" {
		return ""
	}
	c := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	c = strings.TrimPrefix(c, "/")
	if c == "." {
		return ""
	}
	return c
}

// staleness explains why lock l does not satisfy cfg's sources, or "".
func staleness(l *Lock, hub map[string]schema.HubSource) string {
	if l == nil {
		if len(hub) == 0 {
			return ""
		}
		return LockFile + " is missing"
	}
	var why []string
	for _, name := range slices.Sorted(maps.Keys(hub)) {
		e, ok := l.Sources[name]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("source %q is not locked", name))
		case !e.matches(hub[name]):
			why = append(why, fmt.Sprintf("source %q changed in the config (url, ref or path)", name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(l.Sources)) {
		if _, ok := hub[name]; !ok {
			why = append(why, fmt.Sprintf("source %q is locked but no longer configured", name))
		}
	}
	if len(why) == 0 {
		return ""
	}
	return LockFile + " is stale: " + strings.Join(why, "; ")
}
