//go:build !unix

package h1transport

import "net"

// unsolicited cannot peek at a socket on this system; a connection the
// server closed is still caught by the replay rule.
func unsolicited(net.Conn) bool { return false }
