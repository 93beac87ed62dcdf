//go:build unix

package h1transport

import (
	"net"
	"syscall"
)

// unsolicited reports whether an idle connection has something to read:
// bytes of an answer nobody asked for, or the server's end of the
// connection. Either way it must not carry another exchange — the bytes
// would be read as the next request's answer — which is the check
// net/http's transport makes with the read loop it keeps on every idle
// connection. Here it is one non-blocking peek when the connection is
// taken from the pool.
func unsolicited(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	var buf [1]byte
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		_, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true // never wait for readiness
	})
	// Only "would block" means idle; a byte, the end of the stream (0
	// bytes) or an error all mean the connection is done.
	return err != nil || (rerr != syscall.EAGAIN && rerr != syscall.EWOULDBLOCK)
}
