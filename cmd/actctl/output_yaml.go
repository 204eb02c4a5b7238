package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"go.yaml.in/yaml/v3"
)

// jsonStreams are the commands whose -o json is a stream of JSON lines
// as the agent sent them (ACP messages, task logs): no YAML form.
var jsonStreams = []string{"chat", "logs", "run", "task"}

// checkOutput accepts -o text, json or yaml; yaml only where the JSON
// output is objects actctl makes (cmd is the command's name).
func checkOutput(output, cmd string) error {
	switch output {
	case "text", "json":
		return nil
	case "yaml":
		if slices.Contains(jsonStreams, cmd) {
			return usageError("-o yaml: %s prints a stream of JSON lines as received (docs/json.md): use -o json", cmd)
		}
		return nil
	}
	return usageError("-o: unknown output format %q (want text, json or yaml)", output)
}

// writeYAML writes the JSON form of v as YAML: the same fields in the
// same order (-o yaml is -o json in YAML's syntax, docs/json.md). A
// document of a stream starts with "---".
func writeYAML(w io.Writer, v any, stream bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b.Bytes(), &doc); err != nil {
		return fmt.Errorf("-o yaml: %w", err)
	}
	blockStyle(&doc)
	if stream {
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
	}
	ye := yaml.NewEncoder(w)
	ye.SetIndent(2)
	if err := ye.Encode(&doc); err != nil {
		return err
	}
	return ye.Close()
}

// blockStyle drops the JSON syntax a node was read in (flow collections,
// quoted strings): YAML's encoder then quotes only where it must.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// structured maps -o yaml to json, the form commands test for (JSON);
// PrintJSON then writes it as YAML.
func structured(output string) string {
	if output == "yaml" {
		return "json"
	}
	return output
}
