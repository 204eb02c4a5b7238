// Package schema loads a workspace's actant.cue against the embedded CUE
// schema (actant.cue beside this file) and gives every other package the
// same typed view of it: agents, templates, backends, archetypes, skills,
// prompts, MCP servers and hub sources (package model's types, which
// model.go names here too; Config in config.go), each agent resolved to
// its template, backend and workspace directory (resolve.go).
//
// It is where a config is refused: CUE's own errors and the checks CUE
// types cannot express (validate.go, workdir.go, validate_backend.go) are
// collected as Diagnostics positioned at file:line:col of the user's
// config, every one of them at once, so that `actctl validate` lists them
// all and nothing downstream ever sees an invalid config (README, "A tour
// of the config"). The package reads; it never writes the workspace.
package schema
