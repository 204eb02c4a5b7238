//go:build !unix && !windows

package control

// maxSocketPath: systems without Unix sockets fail in net.Listen anyway.
const maxSocketPath = 107
