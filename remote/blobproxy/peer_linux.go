package blobproxy

import (
	"fmt"
	"net"
	"syscall"
)

// abstractSockets says whether the system has abstract Unix sockets.
const abstractSockets = true

// peerListener accepts only connections from the process pid (by the
// kernel's SO_PEERCRED of the connecting socket); others are closed.
type peerListener struct {
	net.Listener
	pid int
}

func (l peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if err := checkPeer(c, l.pid); err != nil {
			c.Close()
			continue
		}
		return c, nil
	}
}

// checkPeer returns an error unless c's other end belongs to process pid.
func checkPeer(c net.Conn, pid int) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if int(cred.Pid) != pid {
		return fmt.Errorf("connection from process %d, not %d", cred.Pid, pid)
	}
	return nil
}
