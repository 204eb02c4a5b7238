package importer

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/block"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// Taken is one hand edit `import --update` took into the config: the
// instruction file it came from, the prompt whose text it now is, and
// where that text is written.
type Taken struct {
	File   string `json:"file"`
	Agent  string `json:"agent"`
	Prompt string `json:"prompt"`
	At     string `json:"at"`
}

// Left is a hand edit `import --update` could not take, and why.
type Left struct {
	File   string `json:"file"`
	Agent  string `json:"agent"`
	Reason string `json:"reason"`
}

// Update takes the hand edits of imported text back into the config
// (docs/import.md, "Editing imported text"): every block that apply
// reports as drift and whose text is one prompt verbatim
// (materialize.Entry.Source) gets its current body written into that
// prompt's string in the user's CUE file, in place (every other byte of
// the file kept). dryRun computes the same and writes nothing. Blocks
// whose text is not one prompt are Left with the reason.
func Update(ctx context.Context, cfg *schema.Config, dryRun bool) ([]Taken, []Left, error) {
	res, err := reconcile.Apply(ctx, cfg, reconcile.Options{DryRun: true})
	if err != nil {
		return nil, nil, err
	}
	edits := map[string]*promptEdit{} // by source path
	var left []Left
	for _, it := range res.Items {
		if it.Action != reconcile.ActDrift || len(it.Agents) != 1 {
			continue
		}
		if it.Source == "" {
			left = append(left, Left{File: it.Path, Agent: it.Agents[0], Reason: "its text is not one prompt of the config as written (a heading, several prompts, variables or skills): edit the config by hand"})
			continue
		}
		if l := addEdit(cfg, edits, it); l != nil {
			left = append(left, *l)
		}
	}
	taken, more, err := writeEdits(cfg, edits, dryRun)
	return taken, append(left, more...), err
}

// promptEdit is the new text of one prompt and the blocks it came from.
type promptEdit struct {
	source, text string
	from         []Taken
	conflict     bool
}

// addEdit reads the drifted block of item it and records its body as
// the new text of the item's prompt.
func addEdit(cfg *schema.Config, edits map[string]*promptEdit, it reconcile.Item) *Left {
	agent := it.Agents[0]
	path := it.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(cfg.Root, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return &Left{File: it.Path, Agent: agent, Reason: err.Error()}
	}
	body, ok, err := block.Find(data, agent, block.StyleHTML)
	if err != nil || !ok {
		return &Left{File: it.Path, Agent: agent, Reason: fmt.Sprintf("its block cannot be read (%v)", err)}
	}
	text := string(bytes.TrimRight(body, "\n"))
	e := edits[it.Source]
	if e == nil {
		e = &promptEdit{source: it.Source, text: text}
		edits[it.Source] = e
	} else if e.text != text {
		e.conflict = true
	}
	e.from = append(e.from, Taken{File: it.Path, Agent: agent, Prompt: it.Source})
	return nil
}

// writeEdits writes each prompt's new text into its CUE file, the edits
// of one file from its end to its start so offsets stay true.
func writeEdits(cfg *schema.Config, edits map[string]*promptEdit, dryRun bool) ([]Taken, []Left, error) {
	type splice struct {
		start, end int
		text       string
		e          *promptEdit
	}
	byFile := map[string][]splice{}
	var taken []Taken
	var left []Left
	leave := func(e *promptEdit, why string) {
		for _, f := range e.from {
			left = append(left, Left{File: f.File, Agent: f.Agent, Reason: why})
		}
	}
	for _, src := range slices.Sorted(maps.Keys(edits)) {
		e := edits[src]
		if e.conflict {
			leave(e, fmt.Sprintf("the blocks of %s were edited differently: make them the same, or edit %s by hand", agentsOf(e), src))
			continue
		}
		file, start, end, lit, err := locateString(cfg, src)
		if err != nil {
			leave(e, err.Error())
			continue
		}
		byFile[file] = append(byFile[file], splice{start, end, lit(e.text), e})
	}
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		data, err := os.ReadFile(file)
		if err != nil {
			return taken, left, err
		}
		ss := byFile[file]
		sort.Slice(ss, func(i, j int) bool { return ss[i].start > ss[j].start })
		for _, s := range ss {
			data = slices.Concat(data[:s.start], []byte(s.text), data[s.end:])
		}
		if !dryRun {
			if err := atomicfile.Write(file, data, 0o644); err != nil {
				return taken, left, fmt.Errorf("update %s: %w", file, err)
			}
		}
		for i := len(ss) - 1; i >= 0; i-- {
			for _, f := range ss[i].e.from {
				f.At = cfg.Where(ss[i].e.source)
				taken = append(taken, f)
			}
		}
	}
	return taken, left, nil
}

// locateString finds the string literal that is the config's value at
// path in the user's own files: its file, byte range, and how to write a
// new text in its place (a multi-line string at the literal's depth when
// the text has several lines, and the prompt's own trailing newlines kept).
func locateString(cfg *schema.Config, path string) (string, int, int, func(string) string, error) {
	pos := cfg.Pos(path)
	if !pos.IsValid() {
		return "", 0, 0, nil, fmt.Errorf("%s has no position in the config: edit it by hand", path)
	}
	file := pos.Filename()
	if rel, ok := schema.RelWithin(cfg.Root, file); !ok || strings.HasPrefix(rel, "cue.mod/") || strings.HasPrefix(rel, "cue.mod"+string(filepath.Separator)) {
		return "", 0, 0, nil, fmt.Errorf("%s is written in %s, outside the workspace's own files (a hub or module): edit it there", path, file)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return "", 0, 0, nil, err
	}
	f, err := parser.ParseFile(file, src, parser.ParseComments)
	if err != nil {
		return "", 0, 0, nil, fmt.Errorf("parse %s: %w", file, err)
	}
	var lit *ast.BasicLit
	ast.Walk(f, func(n ast.Node) bool {
		if b, ok := n.(*ast.BasicLit); ok && b.Pos().Line() == pos.Line() && b.Pos().Column() == pos.Column() {
			lit = b
		}
		return lit == nil
	}, nil)
	if lit == nil {
		return "", 0, 0, nil, fmt.Errorf("%s at %s:%d:%d is not a plain string: edit it by hand", path, file, pos.Line(), pos.Column())
	}
	start, end := lit.Pos().Offset(), lit.End().Offset()
	old, err := literal.Unquote(lit.Value)
	if err != nil {
		return "", 0, 0, nil, fmt.Errorf("%s: %w", path, err)
	}
	trail := old[len(strings.TrimRight(old, "\n")):]
	tabs := 1 + leadingTabs(src, start)
	return file, start, end, func(text string) string {
		return literal.String.WithOptionalTabIndent(tabs).Quote(text + trail)
	}, nil
}

// leadingTabs counts the tabs that indent the line holding offset off.
func leadingTabs(src []byte, off int) int {
	line := bytes.LastIndexByte(src[:off], '\n') + 1
	n := 0
	for line+n < len(src) && src[line+n] == '\t' {
		n++
	}
	return n
}

func agentsOf(e *promptEdit) string {
	var names []string
	for _, f := range e.from {
		names = append(names, fmt.Sprintf("%q", f.Agent))
	}
	return "agents " + strings.Join(names, ", ")
}
