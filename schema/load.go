package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
)

// Source is the embedded CUE schema (README, "A tour of the config"),
// printed by `actctl schema`.
//
//go:embed actant.cue
var Source []byte

// FileName is the workspace config file that marks a workspace root.
const FileName = "actant.cue"

// schemaFile is the name the embedded schema takes beside the user's files.
// It is an overlay: nothing is written to the workspace.
const schemaFile = "actctl-schema.cue"

// LoadOptions say where to look for the workspace.
type LoadOptions struct {
	// Dir is the workspace root given with -C; empty means search.
	Dir string
	// Cwd is where the upward search starts.
	Cwd string
	// Home is $ACTANT_HOME; empty means ~/.actant.
	Home string
}

// DefaultHome returns $ACTANT_HOME's default, ~/.actant.
func DefaultHome() (string, error) {
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(h, ".actant"), nil
}

// HomeDir returns the absolute actctl home for o.
func (o LoadOptions) HomeDir() (string, error) {
	if o.Home == "" {
		return DefaultHome()
	}
	return filepath.Abs(o.Home)
}

// Find returns the workspace root: -C, else the nearest directory upward
// from Cwd holding actant.cue, else $ACTANT_HOME when it holds one.
func Find(o LoadOptions) (string, error) {
	home, err := o.HomeDir()
	if err != nil {
		return "", err
	}
	if o.Dir != "" {
		dir, err := filepath.Abs(o.Dir)
		if err != nil {
			return "", err
		}
		fi, err := os.Stat(dir)
		if err != nil {
			return "", fmt.Errorf("workspace %s: %w", dir, unwrapPathError(err))
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("workspace %s: not a directory", dir)
		}
		if _, err := os.Lstat(filepath.Join(dir, FileName)); err != nil {
			return "", fmt.Errorf("no %s in %s (run `actctl init` there to create one)", FileName, dir)
		}
		return dir, nil
	}
	start, err := filepath.Abs(o.Cwd)
	if err != nil {
		return "", err
	}
	for dir := start; ; {
		if _, err := os.Lstat(filepath.Join(dir, FileName)); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if _, err := os.Stat(filepath.Join(home, FileName)); err == nil {
		return home, nil
	}
	return "", fmt.Errorf("no %s found: looked in %s and every parent directory, and in %s (ACTANT_HOME); run `actctl init` to create one",
		FileName, start, home)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Load finds the workspace, loads every *.cue file of package actant in its
// root with the embedded schema, validates it and decodes it. On failure
// the error is a Diagnostics listing every problem with its position.
func Load(o LoadOptions) (*Config, error) {
	root, err := Find(o)
	if err != nil {
		return nil, err
	}
	home, err := o.HomeDir()
	if err != nil {
		return nil, err
	}
	return LoadDir(root, home)
}

// LoadDir loads the workspace rooted at root (absolute) with actctl home home.
func LoadDir(root, home string) (*Config, error) {
	cfg, err := evaluate(root, home)
	if err != nil {
		return nil, err
	}
	return cfg.finish()
}

// evaluate is the part of a load that CUE does: the package built with
// the schema, positions recorded, the value decoded. What it produces is
// what a Snapshot keeps.
func evaluate(root, home string) (*Config, error) {
	v, files, syntax, err := build(root)
	if err != nil {
		return nil, err
	}
	cfg := &Config{Root: root, Home: home, Files: files, value: v}
	cfg.recordPositions(syntax)
	if ds := cfg.checkTopLevel(); len(ds) > 0 {
		return nil, ds
	}
	// Decoding stops at the first problem; only then walk the whole value
	// again to report every problem (the fast path walks once).
	export, err := decode(v, cfg)
	if err != nil {
		if verr := validateAll(v); verr != nil {
			err = verr
		}
		return nil, cfg.missingFields(cueDiagnostics(err))
	}
	cfg.normalize()
	cfg.evaluated = &evaluated{export: export, pos: maps.Clone(cfg.pos)}
	return cfg, nil
}

// finish reads the files skills name and validates: what every load
// does, from CUE or from a snapshot.
func (cfg *Config) finish() (*Config, error) {
	ds := cfg.readSkillFiles()
	ds = append(ds, cfg.Validate()...)
	ds.Sort()
	cfg.Warnings = ds.Warnings()
	if errs := ds.Errors(); len(errs) > 0 {
		return nil, ds
	}
	return cfg, nil
}

// normalize fills the zero values JSON decoding leaves for lists.
func (cfg *Config) normalize() {
	for _, name := range slices.Sorted(maps.Keys(cfg.Templates)) {
		t := cfg.Templates[name]
		normalize(&t)
		cfg.Templates[name] = t
	}
}

// decode fills cfg from the evaluated value by way of CUE's JSON export
// (returned): one walk of the value, where Value.Decode makes a new
// evaluation context for every struct and sorts every struct's fields (a
// third of the whole load of a 600-file job; docs/benchmarks.md).
func decode(v cue.Value, cfg *Config) ([]byte, error) {
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return b, decodeJSON(b, cfg)
}

// decodeJSON decodes the JSON export of a config into cfg. Numbers in
// settings stay as written: an integer beyond int64 or a float's digits
// are not rounded through float64.
func decodeJSON(b []byte, cfg *Config) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(cfg)
}

// build evaluates the CUE package in root unified with the schema.
func build(root string) (cue.Value, []string, []*ast.File, error) {
	overlay, err := checkCUEFiles(root)
	if err != nil {
		return cue.Value{}, nil, nil, err
	}
	overlay[filepath.Join(root, schemaFile)] = load.FromBytes(Source)
	// The module root is the workspace root (README, "A tour of the config": its *.cue files, plus
	// its cue.mod/): CUE would otherwise take the nearest cue.mod above it
	// and load the package's files from every directory in between, which
	// neither the special-file check nor the config cache's key covers.
	lc := &load.Config{Dir: root, ModuleRoot: root, Package: "actant", Overlay: overlay}
	insts := load.Instances([]string{"."}, lc)
	if len(insts) != 1 {
		return cue.Value{}, nil, nil, fmt.Errorf("load %s: expected one CUE package, got %d", root, len(insts))
	}
	inst := insts[0]
	if inst.Err != nil {
		return cue.Value{}, nil, nil, cueDiagnostics(inst.Err)
	}
	var files []string
	var syntax []*ast.File
	for _, f := range inst.Files {
		if filepath.Base(f.Filename) != schemaFile {
			files = append(files, f.Filename)
			syntax = append(syntax, f)
		}
	}
	if len(files) == 0 {
		return cue.Value{}, nil, nil, fmt.Errorf("load %s: no CUE files of package actant (does %s start with `package actant`?)", root, FileName)
	}
	ctx := cuecontext.New()
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		// Err holds the first error only; list them all when we can.
		if all := validateAll(v); all != nil {
			err = all
		}
		return cue.Value{}, nil, nil, cueDiagnostics(err)
	}
	return v, files, syntax, nil
}

// Path builds a CUE path string from labels, quoting where needed:
// Path("agents", "my.agent") == `agents."my.agent"`.
func Path(labels ...string) string {
	sel := make([]cue.Selector, len(labels))
	for i, l := range labels {
		sel[i] = cue.Str(l)
	}
	return cue.MakePath(sel...).String()
}

// topLevel are the fields the schema defines at the top of the config.
var topLevel = []string{"hub", "backends", "archetypes", "skills", "prompts", "commands", "ignore", "mcpServers", "templates", "agents", "hooks", "webhooks", "deploy", "plugins"}

// checkTopLevel reports regular top-level fields the schema does not know
// (a typo like `agent:` would otherwise be silently ignored).
func (c *Config) checkTopLevel() Diagnostics {
	var ds Diagnostics
	it, err := c.value.Fields()
	if err != nil {
		return cueDiagnostics(err)
	}
	for it.Next() {
		name := it.Selector().Unquoted()
		if it.Selector().IsDefinition() || it.Selector().Type().IsHidden() || slices.Contains(topLevel, name) {
			continue
		}
		msg := fmt.Sprintf("unknown top-level field %q", name)
		if s := suggest(name, topLevel); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		ds = append(ds, Diagnostic{Pos: it.Value().Pos(), Path: name, Message: msg})
	}
	return ds
}

// readSkillFiles loads the content of file and dir skills, relative to the
// workspace root, so that Skill.Content always holds the skill body.
func (c *Config) readSkillFiles() Diagnostics {
	var ds Diagnostics
	for _, name := range slices.Sorted(maps.Keys(c.Skills)) {
		s := c.Skills[name]
		path := Path("skills", name)
		n := 0
		for _, set := range []bool{s.Content != "", s.File != "", s.Dir != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			ds = append(ds, c.Diag(path, "a skill needs exactly one of content, file or dir"))
			continue
		}
		switch {
		case s.File != "":
			p := c.abs(s.File)
			b, err := ReadRegular(p, MaxSkillFileSize)
			if err != nil {
				ds = append(ds, c.Diag(Path("skills", name, "file"), "read %s: %v", p, unwrapPathError(err)))
				continue
			}
			s.Source = p
			s.Content = string(b)
		case s.Dir != "":
			dir := c.abs(s.Dir)
			sk, err := ReadSkillDir(dir)
			if err != nil {
				ds = append(ds, c.Diag(Path("skills", name, "dir"), "%v", err))
				continue
			}
			sk.Description = s.Description
			sk.Dir = s.Dir
			s = sk
		}
		if err := SplitSkill(&s, s.Content); err != nil {
			ds = append(ds, c.skillDiag(Path("skills", name), s.Source, s.Content, err))
			continue
		}
		c.Skills[name] = s
	}
	return ds
}

func (c *Config) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(c.Root, p)
}

// MaxSkillFileSize bounds each file read into a skill, so a stray binary
// cannot blow up memory or the materialized workspace.
const MaxSkillFileSize = 1 << 20

// ReadSkillDir reads an Agent Skills directory: SKILL.md (as Content,
// frontmatter included: see SplitSkill) plus every sibling file, recursively.
// The directory itself may be a link (or lie under one), and SKILL.md a
// link to a file: both are read through (and tracked by their targets:
// see package inputs); links among the sibling files are refused: a skill
// travels as plain files.
func ReadSkillDir(dir string) (Skill, error) {
	main := filepath.Join(dir, "SKILL.md")
	b, err := ReadRegular(main, MaxSkillFileSize)
	if err != nil {
		return Skill{}, fmt.Errorf("read %s: %v", main, unwrapPathError(err))
	}
	s := Skill{Source: main, Content: string(b), Files: map[string][]byte{}}
	// Walk the directory the link leads to, naming files under dir.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Skill{}, fmt.Errorf("read skill %s: %w", dir, err)
	}
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if rel, rerr := filepath.Rel(real, p); rerr == nil {
			p = filepath.Join(dir, rel)
		}
		if err != nil {
			return err
		}
		if p == dir || p == main {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: symlinks are not allowed in a skill directory", p)
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > MaxSkillFileSize {
			return fmt.Errorf("%s: %d bytes is over the %d byte limit for skill files", p, info.Size(), MaxSkillFileSize)
		}
		data, err := ReadRegular(p, MaxSkillFileSize)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s.Files[filepath.ToSlash(rel)] = data
		if info.Mode()&0o111 != 0 {
			if s.Executable == nil {
				s.Executable = map[string]bool{}
			}
			s.Executable[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		return Skill{}, fmt.Errorf("read skill %s: %w", dir, err)
	}
	return s, nil
}

// normalize fills the zero values JSON decoding leaves for lists.
func normalize(t *Template) {
	if t.Skills == nil {
		t.Skills = []string{}
	}
	if t.Prompts == nil {
		t.Prompts = []string{}
	}
	if t.MCPServers == nil {
		t.MCPServers = []string{}
	}
	if t.SubAgents == nil {
		t.SubAgents = []string{}
	}
	if t.Commands == nil {
		t.Commands = []string{}
	}
	if t.Ignore == nil {
		t.Ignore = []string{}
	}
}

// Starter is the commented actant.cue that `actctl init` writes.
//
//go:embed starter.cue
var Starter []byte
