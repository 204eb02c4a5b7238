// Package workspace composes the workflows the command line runs on a
// workspace, between the flags and the domain packages: Load (the config
// through its cache, the hub, the ad-hoc agents), Apply (the no-change
// fast path, the apply with the prune of runtime records, the inputs
// record, the config cache, heartbeats and agent:* hooks), Import, Delete
// and Watch (apply --watch, and up's cycles). Each takes Options: where the
// workspace is and where its warnings, debug lines and progress go; the
// command prints what a workflow returns.
package workspace
