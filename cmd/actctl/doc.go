// Command actctl materializes AI coding agents' files from one CUE config
// (actant.cue) and serves them to editors (README).
//
// The package is the command line only: each command is one file named
// after it (apply.go, diff.go, status.go, ...) that parses its flags,
// calls one function of the packages below and prints the result (text,
// or JSON with -o json: docs/json.md). Domain logic lives in those
// packages (docs/design.md); main.go holds the application, its global
// flags and exit codes.
package main
