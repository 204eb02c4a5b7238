package main

import (
	"bytes"
	"testing"
)

// TestLogsAsk: `actctl logs --task` shows a permission request put to
// the person (a dashboard conversation), escaped, then the user's
// decision.
func TestLogsAsk(t *testing.T) {
	var b bytes.Buffer
	r := newTaskRenderer(&b)
	r.line([]byte(`{"jsonrpc":"2.0","method":"_actctl/ask","params":{"toolCallId":"c1","title":"Run \u001b[2Jrm","kind":"execute","options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}],"deadline":"2026-11-29T10:05:00Z"}}`))
	r.line([]byte(`{"jsonrpc":"2.0","method":"_actctl/permission","params":{"toolCallId":"c1","title":"Run \u001b[2Jrm","kind":"execute","decision":"allowed","optionId":"yes","by":"user"}}`))
	want := "asked the user: Run \\x1b[2Jrm (execute): Allow, Reject; the preset answers at 10:05:00 UTC\n"
	if got := b.String(); len(got) < len(want) || got[:len(want)] != want || !bytes.Contains(b.Bytes(), []byte("by the user")) {
		t.Errorf("rendered:\n%s\nwant first:\n%s", got, want)
	}
}
