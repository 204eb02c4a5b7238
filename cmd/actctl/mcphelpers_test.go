package main

import (
	"bytes"
	"sync"

	"github.com/actctl/actctl/mcpserver"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers (the output of
// a background process in tests).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The results of the MCP tools, as the e2e tests decode them.
type (
	listAgentsOut = mcpserver.ListAgentsOut
	runAgentOut   = mcpserver.RunAgentOut
)
