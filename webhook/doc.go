// Package webhook is the listener of `actctl up --webhooks ADDR`
// (docs/runtime.md, "Webhooks"): it serves only POST /webhooks/NAME for
// the workspace's declared webhooks, verifies each delivery's HMAC-SHA256
// signature in constant time, bounds its body, drops replays by delivery
// id, filters by event type, and queues what it accepts on a bounded
// queue; a worker hands each delivery to the caller (up publishes the
// event webhook:NAME). A request is answered as soon as its delivery is
// queued or refused: nothing waits on the work.
package webhook
