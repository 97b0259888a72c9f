//go:build !linux

package blobproxy

import "net"

// abstractSockets says whether the system has abstract Unix sockets.
const abstractSockets = false

// peerListener is not used where there are no abstract sockets (the
// socket's private directory keeps others out).
type peerListener struct {
	net.Listener
	pid int
}
