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
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true // never wait for readiness
	})
	if err != nil {
		return true
	}
	if rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK {
		return false // nothing to read: the connection is idle as it should be
	}
	_ = n // n > 0: unsolicited bytes; n == 0: the server closed it
	return true
}
