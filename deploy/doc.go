// Package deploy renders the deploy: targets of actant.cue — Kubernetes
// (a StatefulSet running `actctl up --frozen`, CronJobs running `actctl
// task`), GitHub Actions (a workflow per employee) and systemd (an
// actctl-up@.service template unit) — into the files those engines read
// (docs/deploy.md). It is pure: config in, files out, no I/O. apply writes
// the files as owned outputs (package reconcile), so `actctl diff` tells
// when a committed file is stale.
//
// The Kubernetes documents are emitted from small local types with
// go.yaml.in/yaml/v3: k8s.io/api is too costly to start (docs/design.md)
// and is used by the tests only, to decode every document strictly.
package deploy
