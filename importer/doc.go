// Package importer turns the agent files a repository already has
// (CLAUDE.md, AGENTS.md, GEMINI.md, skills, MCP servers, permissions and
// settings) into an actant.cue whose apply writes nothing: what it takes
// is exactly what apply would write, so apply adopts the files as they
// are; what it cannot take that way is reported, never dropped in
// silence (docs/import.md).
//
// It exists apart from package reconcile because it reads the tools'
// native files back, the one direction the rest of actctl never goes.
// Every backend it knows is a row of Backends, so a new tool is data.
package importer
