package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"
)

// rawConn is a minimal HTTP/1.1 keep-alive client for the load loop: the
// request is built once and written as is, and the answer is parsed just
// enough to find its status and body (Content-Length or chunked). Go's
// http.Client costs the load generator tens of microseconds per request,
// which on a two-core machine is taken from the gateway being measured; a
// wrk-style client leaves the cores to the gateway, so a cheap path such as
// the 401 can be driven at full speed.
type rawConn struct {
	addr    string
	timeout time.Duration
	req     []byte
	conn    net.Conn
	r       *bufio.Reader
}

// rawRequest renders the POST the Target would send for sc.
func rawRequest(t Target, sc Scenario) ([]byte, string, error) {
	u, err := url.Parse(t.Endpoint)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, "", fmt.Errorf("raw client: endpoint %q must be an http:// URL", t.Endpoint)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: loadtest\r\n", u.RequestURI(), u.Host)
	if !sc.NoAuth {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", t.Token)
	}
	b.WriteString("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
	if t.ProtocolVersion != "" {
		fmt.Fprintf(&b, "MCP-Protocol-Version: %s\r\n", t.ProtocolVersion)
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(sc.Body))
	b.Write(sc.Body)
	return b.Bytes(), u.Host, nil
}

func newRawConn(t Target, sc Scenario) (*rawConn, error) {
	req, host, err := rawRequest(t, sc)
	if err != nil {
		return nil, err
	}
	timeout := 30 * time.Second
	if t.Client != nil && t.Client.Timeout > 0 {
		timeout = t.Client.Timeout
	}
	return &rawConn{addr: host, timeout: timeout, req: req}, nil
}

func (c *rawConn) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}

// do sends the request on the kept-alive connection (dialling when there is
// none) and reads the answer into buf. A failure closes the connection.
func (c *rawConn) do(ctx context.Context, buf *bytes.Buffer) (int, error) {
	if c.conn == nil {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", c.addr)
		if err != nil {
			return 0, err
		}
		c.conn = conn
		c.r = bufio.NewReaderSize(conn, 32<<10)
	}
	_ = c.conn.SetDeadline(time.Now().Add(c.timeout))
	if _, err := c.conn.Write(c.req); err != nil {
		c.close()
		return 0, err
	}
	status, keep, err := readRawResponse(c.r, buf)
	if err != nil || !keep {
		c.close()
	}
	return status, err
}

// readRawResponse reads one HTTP/1.1 response: status line, headers, and a
// Content-Length or chunked body (bounded at 64 MiB).
func readRawResponse(r *bufio.Reader, buf *bytes.Buffer) (status int, keepAlive bool, err error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked, keepAlive := -1, false, true
	for {
		line, err = r.ReadSlice('\n')
		if err != nil {
			return status, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(v)); err != nil || length < 0 {
				return status, false, fmt.Errorf("bad Content-Length %q", v)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			keepAlive = !bytes.EqualFold(v, []byte("close"))
		}
	}
	buf.Reset()
	const maxBody = 64 << 20
	switch {
	case chunked:
		for {
			line, err = r.ReadSlice('\n')
			if err != nil {
				return status, false, err
			}
			size, err := strconv.ParseInt(string(bytes.TrimRight(line, "\r\n")), 16, 64)
			if err != nil || size < 0 || int64(buf.Len())+size > maxBody {
				return status, false, fmt.Errorf("bad chunk size %q", line)
			}
			if size == 0 {
				_, err = r.ReadSlice('\n') // no trailers from the gateway
				return status, keepAlive, err
			}
			if _, err := io.CopyN(buf, r, size+2); err != nil {
				return status, false, err
			}
			buf.Truncate(buf.Len() - 2)
		}
	case length >= 0:
		if length > maxBody {
			return status, false, errors.New("body too large")
		}
		_, err = io.CopyN(buf, r, int64(length))
		return status, keepAlive, err
	case status == 204 || status == 304:
		return status, keepAlive, nil
	}
	return status, false, errors.New("answer without Content-Length or chunked body")
}
