// Command startfloor is the start floor of docs/benchmarks.md: a program
// that links cuelang.org/go (the CUE evaluator actctl is built on) and does
// nothing. Its run time is the cost of starting a Go process of that size
// and running CUE's own package initialisation, which no actctl command can
// go below.
package main

import _ "cuelang.org/go/cue/cuecontext"

func main() {}
