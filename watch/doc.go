// Package watch is the loop behind `actctl apply --watch`: it watches the
// directories a configuration depends on (fsnotify), debounces bursts of
// editor events into one cycle, polls hub sources with an interval, and
// calls a Run function supplied by the caller for every cycle.
//
// It is its own package because it knows nothing about applying: the
// command wires load + apply into Options.Run, so the loop depends only on
// fsnotify, the atomic writer's temporary-file prefix (never a change worth
// a cycle) and the name of actctl's metadata directory (internal/layout).
package watch
