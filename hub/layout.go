package hub

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/cue/token"

	"github.com/actctl/actctl/schema"
)

// MaxFileSize bounds every file a hub may contribute: hub content is
// untrusted, and a stray binary must not blow up memory or the
// materialized workspaces.
const MaxFileSize = schema.MaxSkillFileSize

// MaxTreeSize bounds the whole extracted component tree of one source.
const MaxTreeSize = 256 << 20

// Layout names, as reported by `hub ls`.
const (
	LayoutActantHub   = "actant-hub"
	LayoutAgentSkills = "agent-skills"
	LayoutCUE         = "cue"
)

// Component kinds, as used in Info.Kind and the update report.
const (
	KindSkill    = "skill"
	KindPrompt   = "prompt"
	KindMCP      = "mcp"
	KindTemplate = "template"
	KindBackend  = "backend"
	KindPreset   = "preset"
)

// Components is what one hub tree provides, keyed by the component's own
// (unqualified) name. Template references are unqualified as written in the
// hub; Merge qualifies them with the source name.
type Components struct {
	Layout      string
	Name        string // manifest name, if any
	Version     string // manifest version, if any
	Description string

	Skills     map[string]schema.Skill
	Prompts    map[string]schema.Prompt
	MCPServers map[string]schema.MCPServer
	Templates  map[string]schema.Template
	Backends   map[string]schema.Backend
	Presets    map[string]Preset

	// Info describes every component, keyed "kind/name".
	Info map[string]Info
	// Notes are fields the reader understood but has no place for (Actant's
	// permissions.sandbox, schedule.hooks): reported by `hub ls`, never fatal.
	Notes []string
	// Dropped says, by template name, what of the template was dropped and
	// why (also among Notes): `validate` reports it for the agents of the
	// template.
	Dropped map[string][]string
	// Sandbox is, by template name, the Claude Code sandbox settings
	// (JSON) of a claude-code template: Merge writes them into its
	// settings (Actant's permissions.sandbox).
	Sandbox map[string]string
}

// Preset is an actant-hub bundle of component names. actctl has no preset
// concept in its config; presets are listed and checked, not merged.
type Preset struct {
	Description string   `json:"description,omitempty"`
	Skills      []string `json:"skills,omitempty"`
	Prompts     []string `json:"prompts,omitempty"`
	MCPServers  []string `json:"mcpServers,omitempty"`
	Templates   []string `json:"templates,omitempty"`
}

// Info is the catalogue entry of one component.
type Info struct {
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	// File is the component's file, relative to the hub tree.
	File string `json:"file"`
	// Digest is the sha256 of the component's files: `hub update` uses it
	// to tell a changed component whose version was not bumped.
	Digest string `json:"digest"`
	// Pos points into File (for diagnostics after merging).
	Pos token.Pos `json:"-"`
}

// ReadTree reads the hub tree in fsys and detects its layout: an actant.json
// manifest or any of skills/, prompts/, templates/, backends/, mcp/,
// presets/ holding JSON means the actant-hub layout; *.cue files at the root
// mean a CUE hub; otherwise every **/SKILL.md is an Agent Skill. base is
// the directory fsys stands for; it prefixes file names in messages so that
// an error names the real file. Every problem is returned as a
// schema.Diagnostics, positioned in the hub file.
func ReadTree(fsys fs.FS, base string) (*Components, error) {
	r := &reader{fsys: fsys, base: base, c: newComponents()}
	if err := r.scanSafety(); err != nil {
		return nil, err
	}
	switch {
	case r.isActantHub():
		r.c.Layout = LayoutActantHub
		r.readActantHub()
	case r.hasRootCUE():
		r.c.Layout = LayoutCUE
		r.readCUE()
	default:
		r.c.Layout = LayoutAgentSkills
		r.readAgentSkills(".")
	}
	if len(r.ds) > 0 {
		return nil, r.ds
	}
	sort.Strings(r.c.Notes)
	return r.c, nil
}

func newComponents() *Components {
	return &Components{
		Skills:     map[string]schema.Skill{},
		Prompts:    map[string]schema.Prompt{},
		MCPServers: map[string]schema.MCPServer{},
		Templates:  map[string]schema.Template{},
		Backends:   map[string]schema.Backend{},
		Presets:    map[string]Preset{},
		Info:       map[string]Info{},
		Dropped:    map[string][]string{},
		Sandbox:    map[string]string{},
	}
}

// reader accumulates diagnostics so that one run reports every bad file.
type reader struct {
	fsys fs.FS
	base string
	c    *Components
	ds   schema.Diagnostics
	// files caches file contents read so far (name -> data).
	files map[string][]byte
	// pos caches token files for positions.
	tok map[string]*token.File
}

// display is the name of a hub file in messages.
func (r *reader) display(name string) string {
	if r.base == "" {
		return name
	}
	return path.Join(strings.ReplaceAll(r.base, "\\", "/"), name)
}

func (r *reader) errorf(name string, offset int, format string, args ...any) {
	r.ds = append(r.ds, schema.Diagnostic{Pos: r.pos(name, offset), Message: fmt.Sprintf(format, args...)})
}

func (r *reader) note(format string, args ...any) {
	r.c.Notes = append(r.c.Notes, fmt.Sprintf(format, args...))
}

// pos makes a position in hub file name at byte offset (line 1 when the
// content is unknown).
func (r *reader) pos(name string, offset int) token.Pos {
	if r.tok == nil {
		r.tok = map[string]*token.File{}
	}
	f, ok := r.tok[name]
	if !ok {
		data := r.files[name]
		f = token.NewFile(r.display(name), -1, len(data)+1)
		f.SetLinesForContent(data)
		r.tok[name] = f
	}
	if offset < 0 || offset > f.Size()-1 {
		offset = 0
	}
	return f.Pos(offset, token.NoRelPos)
}

// keyOffset finds the offset of the JSON key path keys in data (each key
// searched after the previous one); 0 when not found. It is a heuristic
// for positions only.
func keyOffset(data []byte, keys ...string) int {
	off := 0
	for _, k := range keys {
		i := bytes.Index(data[off:], []byte(`"`+k+`"`))
		if i < 0 {
			return off
		}
		off += i
	}
	return off
}

// scanSafety walks the whole tree once and refuses what a hub may never
// contain: symlinks (extraction resolves the ones that stay inside the
// tree, so any left here are refused), special files, oversized files.
func (r *reader) scanSafety() error {
	var ds schema.Diagnostics
	total := int64(0)
	err := fs.WalkDir(r.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			ds = append(ds, schema.Diagnostic{Message: fmt.Sprintf("%s: symlinks are not allowed in a hub tree", r.display(p))})
			return nil
		}
		if !d.Type().IsRegular() {
			ds = append(ds, schema.Diagnostic{Message: fmt.Sprintf("%s: not a regular file", r.display(p))})
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > MaxFileSize {
			ds = append(ds, schema.Diagnostic{Message: fmt.Sprintf("%s: %d bytes is over the %d byte limit for hub files", r.display(p), info.Size(), MaxFileSize)})
		}
		total += info.Size()
		return nil
	})
	if err != nil {
		return fmt.Errorf("read hub tree %s: %w", r.base, err)
	}
	if total > MaxTreeSize {
		ds = append(ds, schema.Diagnostic{Message: fmt.Sprintf("%s: %d bytes of components is over the %d byte limit for a hub", r.base, total, MaxTreeSize)})
	}
	if len(ds) > 0 {
		return ds
	}
	return nil
}

// checkRel refuses a path written inside hub content (a manifest entry, a
// CUE skill's file) that is absolute or climbs out with "..".
func checkRel(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	if path.IsAbs(p) || strings.HasPrefix(p, "\\") || (len(p) > 1 && p[1] == ':') {
		return fmt.Errorf("path %q is absolute; hub paths are relative to the hub tree", p)
	}
	for _, el := range strings.Split(strings.ReplaceAll(p, "\\", "/"), "/") {
		if el == ".." {
			return fmt.Errorf("path %q leaves the hub tree (contains \"..\")", p)
		}
	}
	return nil
}

// read returns the content of hub file name (a clean relative path).
func (r *reader) read(name string) ([]byte, error) {
	if b, ok := r.files[name]; ok {
		return b, nil
	}
	if err := checkRel(name); err != nil {
		return nil, err
	}
	name = path.Clean(name)
	fi, err := fs.Stat(r.fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("%d bytes is over the %d byte limit for hub files", fi.Size(), MaxFileSize)
	}
	b, err := fs.ReadFile(r.fsys, name)
	if err != nil {
		return nil, err
	}
	if r.files == nil {
		r.files = map[string][]byte{}
	}
	r.files[name] = b
	return b, nil
}

func (r *reader) exists(name string) bool {
	_, err := fs.Stat(r.fsys, name)
	return err == nil
}

// actantDirs are the component directories of the actant-hub layout.
var actantDirs = []string{"skills", "prompts", "templates", "backends", "mcp", "presets"}

func (r *reader) isActantHub() bool {
	if r.exists("actant.json") {
		return true
	}
	for _, d := range actantDirs {
		if m, _ := fs.Glob(r.fsys, d+"/*.json"); len(m) > 0 {
			return true
		}
	}
	return false
}

func (r *reader) hasRootCUE() bool {
	m, _ := fs.Glob(r.fsys, "*.cue")
	return len(m) > 0
}

// digestOf hashes a component's files (name -> content) in name order.
func digestOf(files map[string][]byte) string {
	names := slices.Sorted(maps.Keys(files))
	h := sha256.New()
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		fmt.Fprintf(h, "%s\x00%x\n", n, sum)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// addInfo records a component in the catalogue; a second component of the
// same kind and name is an error naming both files.
func (r *reader) addInfo(in Info) bool {
	key := in.Kind + "/" + in.Name
	if old, ok := r.c.Info[key]; ok {
		r.errorf(in.File, 0, "%s %q is defined twice: here and in %s", in.Kind, in.Name, r.display(old.File))
		return false
	}
	if msg := schema.CheckName(in.Name); msg != "" {
		r.errorf(in.File, keyOffset(r.files[in.File], "name"), "%s: %s", in.Kind, msg)
		return false
	}
	r.c.Info[key] = in
	return true
}

// decodeJSON parses a hub JSON file into v, reporting syntax errors with
// the position in the file.
func (r *reader) decodeJSON(name string, v any) bool {
	data, err := r.read(name)
	if err != nil {
		r.errorf(name, 0, "read %s: %v", r.display(name), err)
		return false
	}
	if err := json.Unmarshal(data, v); err != nil {
		off := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			off = int(se.Offset)
		case errors.As(err, &te):
			off = int(te.Offset)
		}
		r.errorf(name, off, "invalid JSON: %v", err)
		return false
	}
	return true
}
