package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
		Name:      "explain",
		Usage:     "the schema's documentation of a config field (explain templates.permissions); no FIELD: the top level",
		ArgsUsage: "[FIELD]",
		Description: "FIELD is a dot-separated path from the top of actant.cue; a map's entries may be named\n" +
			"or left out (templates.reviewer.permissions = templates.permissions). The text is the\n" +
			"embedded schema's own comments (actctl schema prints it whole). Reads no workspace.",
		OnUsageError: usageErrors,
		Action:       explainCmd,
	})
}

func explainCmd(c *cli.Context) error {
	if c.NArg() > 1 {
		return usageError("explain takes one FIELD, got %d", c.NArg())
	}
	g := globalsOf(c)
	e, err := schema.Explain(c.Args().First())
	if err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	if g.JSON() {
		return g.PrintJSON(e)
	}
	printExplanation(g.Stdout, e)
	return nil
}

func printExplanation(w io.Writer, e *schema.Explanation) {
	opt := ""
	if e.Optional {
		opt = "   (optional)"
	}
	fmt.Fprintf(w, "FIELD:    %s%s\n", e.Field, opt)
	fmt.Fprintf(w, "TYPE:     %s\n", indentRest(e.Type, "          "))
	if e.Default != "" {
		fmt.Fprintf(w, "DEFAULT:  %s\n", e.Default)
	}
	for _, doc := range []string{e.Doc, e.DefinitionDoc} {
		if doc != "" {
			fmt.Fprintf(w, "\n%s\n", indentRest("    "+doc, "    "))
		}
	}
	if e.Definition != "" && e.DefinitionType != "" {
		fmt.Fprintf(w, "\n%s:\n%s\n", e.Definition, indentRest("    "+e.DefinitionType, "    "))
	}
	if len(e.Fields) == 0 {
		return
	}
	fmt.Fprintf(w, "\nFIELDS:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range e.Fields {
		name := f.Name
		if f.Optional {
			name += "?"
		}
		typ := f.Type
		if strings.Contains(typ, "\n") || len(typ) > 48 {
			typ = typ[:min(len(typ), 45)]
			typ, _, _ = strings.Cut(typ, "\n")
			typ += "..."
		}
		if f.Doc == "" {
			fmt.Fprintf(tw, "    %s\t%s\n", name, typ)
		} else {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", name, typ, f.Doc)
		}
	}
	tw.Flush()
}

// indentRest indents every line of s but the first with prefix.
func indentRest(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
