package gateway

import (
	"io"
	"log/slog"
	"net/http"
)

// Request smuggling guard (RFC 9112 §6.1, RFC 9112 §11.2).
//
// A proxy in front that frames a request by Content-Length while the
// gateway frames it by Transfer-Encoding (or the other way round) could
// have a second request hidden in the first one's body answered on a
// connection it attributes to someone else. RFC 9112 §6.1's rule ends that
// without following any bytes: a server closes the connection after
// answering a request that carried Transfer-Encoding, so nothing after a
// chunked body is ever read as a request. The same section says an
// HTTP/1.0 message with Transfer-Encoding has faulty framing and its
// connection must close too; net/http ignores and deletes that header on
// HTTP/1.0 before a handler runs, so the gateway closes every kept-alive
// HTTP/1.0 connection after its answer.
//
// net/http frames a request with both Transfer-Encoding: chunked and
// Content-Length by Transfer-Encoding and deletes Content-Length before a
// handler runs, so the handler cannot tell it from a plain chunked request;
// where both are still visible (a request handed to Handler by other
// code), it is refused with 400. The other ambiguous framings are refused
// by net/http itself before any handler runs, with the connection closed:
// differing Content-Length values (400), and a Transfer-Encoding other
// than exactly one "chunked" (501).

// framingRefusal is the body of the answer to a request framed two ways, in
// the shape of net/http's own 400 answers.
const framingRefusal = "400 Bad Request: message framed by both Transfer-Encoding and Content-Length"

// guardFraming applies the rule to r: it marks the answer Connection: close
// (net/http then closes the connection after writing it) when r carried
// Transfer-Encoding or is a kept-alive HTTP/1.0 request, and answers r
// itself, reporting true, when r shows both Transfer-Encoding and
// Content-Length.
func guardFraming(w http.ResponseWriter, r *http.Request, log *slog.Logger) (answered bool) {
	_, teHeader := r.Header["Transfer-Encoding"]
	te := len(r.TransferEncoding) > 0 || teHeader
	if !te && !(r.ProtoMajor == 1 && r.ProtoMinor == 0 && !r.Close) {
		return false
	}
	w.Header().Set("Connection", "close")
	if _, clHeader := r.Header["Content-Length"]; te && (clHeader || r.ContentLength >= 0) {
		log.LogAttrs(r.Context(), slog.LevelWarn, "refused a request framed by both Transfer-Encoding and Content-Length",
			slog.String("remote_addr", r.RemoteAddr), slog.String("method", r.Method))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, framingRefusal)
		return true
	}
	return false
}
