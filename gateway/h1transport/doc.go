// Package h1transport is an HTTP/1.1 keep-alive round tripper for the
// gateway's PostgREST look-ups that does each exchange on the calling
// goroutine.
//
// net/http's Transport serves every connection with two goroutines of its
// own (a read loop and a write loop) and hands each request and answer
// across them through channels. For the two small look-ups behind every
// authenticated call — a short GET to a server on the same network — that
// hand-off, with its select, channel locks and scheduler wake-ups, cost
// more CPU than the system calls themselves (docs/performance.md, issue
// 17). This transport writes the request and reads the answer on the
// goroutine that asked, with net/http's own response parser
// (http.ReadResponse), so the answer is framed exactly as net/http frames
// it.
//
// It takes only what it can do as well as net/http: GET and HEAD requests
// without a body to an http:// URL. Everything else — https (TLS, HTTP/2),
// requests with a body, other methods — goes to Fallback, a net/http
// Transport. Proxies are the wiring's concern: the gateway installs this
// transport only when no proxy applies to the upstream URL.
//
// Fanout sends several such requests at once from the calling goroutine,
// each on its own connection, all written before any answer is read: the
// gateway's revocation and staff look-ups are in flight together, as with
// a goroutine each, without the goroutines.
//
// Behaviour kept from net/http's Transport:
//   - a GET or HEAD that meets a dead keep-alive connection (the server
//     closed it while idle) before any byte of an answer arrived is sent
//     again, once, on a new connection;
//   - the request's context bounds the dial, the exchange and the reading
//     of the body, and its error (context.Canceled or DeadlineExceeded) is
//     what a caller sees when it ends the exchange;
//   - "Connection: close" and HTTP/1.0 answers close the connection, and a
//     body closed before its end closes it too, so a connection only goes
//     back to the pool positioned at the next answer;
//   - bytes nobody asked for are never read as an answer: a connection with
//     bytes read past its answer is closed, and an idle one is peeked at
//     (one non-blocking recv) before reuse and closed if the server sent
//     anything or hung up — what net/http's per-connection read loop
//     watches for;
//   - idle connections are bounded per host and dropped after IdleTimeout.
//
// Not kept, on purpose: the Accept-Encoding: gzip that net/http adds (and
// undoes) by itself — answers on a local network are cheaper uncompressed;
// and 1xx answers other than 100 Continue are an error (PostgREST sends
// none).
package h1transport
