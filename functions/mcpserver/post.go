package mcpserver

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/answers"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/jsonrpc"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/revision"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/toolcall"
)

// servePOST handles JSON-RPC in the original's order (docs/contract/protocol.md A2):
// authenticate, record the token's use, read and parse the body, then
// answer a single message (A3) or a batch (A4).
func (s *Server) servePOST(c echo.Context) error {
	cl, ae := s.authenticate(c, nil)
	if ae != nil {
		s.setChallenge(c, ae)
		return writeJSON(c, ae.Status, s.authBody(c, ae))
	}
	log := s.requestLogger(c)
	// The revision is chosen per request (docs/compatibility.md, "Protocol
	// revisions"): MCP-Protocol-Version when it names a handshake revision
	// (2025-03-26 when absent), 2026-07-28 when it or the body's _meta says
	// so. An unsupported value is refused once the body is read, so the
	// answer can echo the request's id.
	hv := headerJS(c.Request().Header, protocolVersionKey)
	version, ok := s.requestVersion(hv)
	cl.version, cl.requestID = version, requestID(c)
	cl.versionStated = hv != "" && !s.pinProtocol

	body, err := s.readBody(c.Request())
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			log.Info("mcp-server: request body too large", "limit_bytes", s.maxBody)
			return writeJSON(c, http.StatusRequestEntityTooLarge, jsonrpc.Envelope(jsonrpc.CodeInvalidRequest, jsonrpc.MsgBodyTooLarge))
		}
		log.Info("mcp-server: reading request body", "error", err)
		return writeJSON(c, http.StatusBadRequest, jsonrpc.Envelope(jsonrpc.CodeParseError, jsonrpc.MsgParseError))
	}
	msg, err := jsjson.Decode(body)
	if err != nil {
		// The original answered 500 with the JavaScript parser's text;
		// JSON-RPC asks for -32700, and the client is at fault (400).
		return writeJSON(c, http.StatusBadRequest, jsonrpc.Envelope(jsonrpc.CodeParseError, jsonrpc.MsgParseError))
	}

	obj, isObject := msg.(*jsjson.Object)
	if isObject && !s.pinProtocol {
		if meta := revision.ReadMeta(obj); revision.Stateless(hv) || meta.HasVersion {
			return s.serveStateless(c, cl, obj, hv, meta, log)
		}
	}
	if !ok {
		var id any
		if isObject {
			id = jsonrpc.MessageID(obj)
		}
		return s.writeResponse(c, http.StatusBadRequest, revision.Unsupported(id, hv), log)
	}

	accept := headerJS(c.Request().Header, "Accept")
	acceptsSSE := strings.Contains(accept, "text/event-stream")
	acceptsJSON := accept == "" || strings.Contains(accept, "application/json") || strings.Contains(accept, "*/*")

	switch m := msg.(type) {
	case []any:
		if !revision.Batches(version) {
			return writeJSON(c, http.StatusBadRequest, jsonrpc.Envelope(jsonrpc.CodeInvalidRequest,
				"Invalid Request: batching is not supported in protocol version "+version))
		}
		return s.serveBatch(c, cl, m, acceptsSSE && !acceptsJSON, log)
	case *jsjson.Object:
		return s.answerSingle(c, cl, m, log)
	case nil:
		// The original threw a TypeError reading .id of null (500).
		return writeJSON(c, http.StatusBadRequest, jsonrpc.Envelope(jsonrpc.CodeInvalidRequest, jsonrpc.MsgInvalidRequest))
	default:
		// A string, number or boolean has no id: the original answers 202.
		return c.NoContent(http.StatusAccepted)
	}
}

// answerSingle answers a single message of a handshake revision: 202 for
// a notification (or a method without a response), else the response as
// JSON whatever Accept says (as the original does).
func (s *Server) answerSingle(c echo.Context, cl *caller, m *jsjson.Object, log *slog.Logger) error {
	if m.Value("id") == nil { // missing or null: a notification
		return c.NoContent(http.StatusAccepted)
	}
	resp := s.dispatch(c.Request().Context(), cl, m, log)
	if resp == nil {
		return c.NoContent(http.StatusAccepted)
	}
	return s.writeResponse(c, http.StatusOK, resp, log)
}

// contentTypeJSONValue is the Content-Type of JSON answers, shared rather
// than allocated per answer.
var contentTypeJSONValue = []string{"application/json"}

// errBodyTooLarge reports a body over Options.MaxBodyBytes.
var errBodyTooLarge = errors.New("request body too large")

// readBody reads the whole body, refusing more than s.maxBody bytes without
// reading past the limit.
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > s.maxBody {
		return nil, errBodyTooLarge
	}
	// One byte past the limit tells a body over it from one that fits.
	b, err := io.ReadAll(io.LimitReader(r.Body, s.maxBody+1))
	if err != nil {
		var mbe *http.MaxBytesError // a limit set by the gateway's middleware
		if errors.As(err, &mbe) {
			return nil, errBodyTooLarge
		}
		return nil, err
	}
	if int64(len(b)) > s.maxBody {
		return nil, errBodyTooLarge
	}
	return b, nil
}

// batchEntry is how one batch element is treated.
type batchEntry uint8

const (
	entrySkip    batchEntry = iota // not a request: a response, a notification or a nested array
	entryRequest                   // an object with a method key and a non-null id
	entryInvalid                   // null or a primitive: answered with Invalid Request
)

func classify(el any) batchEntry {
	switch e := el.(type) {
	case *jsjson.Object:
		if _, hasMethod := e.Get("method"); hasMethod && e.Value("id") != nil {
			return entryRequest
		}
		return entrySkip
	case []any:
		// The original's `"method" in []` is false: skipped (Part D).
		return entrySkip
	default:
		// The original's `"method" in 5` threw and failed the whole batch
		// with a 500; JSON-RPC asks for an Invalid Request for the element.
		return entryInvalid
	}
}

// serveBatch answers an array body (docs/contract/protocol.md A4): requests are handled
// one after another in array order, then framed as one JSON array or as
// SSE message events when the client accepts only text/event-stream.
func (s *Server) serveBatch(c echo.Context, cl *caller, batch []any, sse bool, log *slog.Logger) error {
	if len(batch) > s.maxBatch {
		return writeJSON(c, http.StatusBadRequest, jsonrpc.Envelope(jsonrpc.CodeInvalidRequest, fmt.Sprintf(jsonrpc.MsgBatchTooLargeFn, s.maxBatch)))
	}
	kinds := make([]batchEntry, len(batch))
	answered := false
	for i, el := range batch {
		kinds[i] = classify(el)
		answered = answered || kinds[i] != entrySkip
	}
	if !answered {
		return c.NoContent(http.StatusAccepted)
	}
	ctx := c.Request().Context()
	responses := make([]*jsonrpc.Response, 0, len(batch))
	for i, el := range batch {
		switch kinds[i] {
		case entryRequest:
			if r := s.dispatch(ctx, cl, el.(*jsjson.Object), log); r != nil {
				responses = append(responses, r)
			}
		case entryInvalid:
			responses = append(responses, jsonrpc.Fail(nil, jsonrpc.CodeInvalidRequest, jsonrpc.MsgInvalidRequest))
		}
	}

	var (
		out []byte
		err error
	)
	if sse {
		out, err = appendSSEMessages(nil, responses)
	} else {
		out, err = appendJSONArray(nil, responses)
	}
	if err != nil {
		return s.internalError(c, log, err)
	}
	if sse {
		h := c.Response().Header()
		h.Set(echo.HeaderContentType, "text/event-stream")
		h.Set(echo.HeaderCacheControl, "no-cache")
		c.Response().WriteHeader(http.StatusOK)
		_, err := c.Response().Write(out)
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// appendJSONArray appends the responses as one compact JSON array.
func appendJSONArray(dst []byte, responses []*jsonrpc.Response) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, r := range responses {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = r.AppendJSON(dst); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

// appendSSEMessages appends one `message` event per response, numbered from
// 1 within this answer (docs/contract/protocol.md A6).
func appendSSEMessages(dst []byte, responses []*jsonrpc.Response) ([]byte, error) {
	var err error
	for i, r := range responses {
		dst = append(dst, "id: "...)
		dst = strconv.AppendInt(dst, int64(i+1), 10)
		dst = append(dst, "\nevent: message\ndata: "...)
		if dst, err = r.AppendJSON(dst); err != nil {
			return nil, err
		}
		dst = append(dst, "\n\n"...)
	}
	return dst, nil
}

// internalError answers the A5 envelope for a fault of this server.
func (s *Server) internalError(c echo.Context, log *slog.Logger, err error) error {
	log.Error("mcp-server: internal error", "error", err)
	return writeJSON(c, http.StatusInternalServerError, jsonrpc.Envelope(jsonrpc.CodeInternalError, jsonrpc.MsgInternalError))
}

// requestVersion returns the revision a request is served under. With
// PinProtocol2024 it is always the original's 2024-11-05 (the header is never
// read); otherwise it is the MCP-Protocol-Version header, or 2025-03-26 when
// the header is absent. ok is false when the header names a revision not
// served, which the transport answers with 400; version then holds the
// header's text for the message.
func (s *Server) requestVersion(header string) (version string, ok bool) {
	switch {
	case s.pinProtocol:
		return revision.Original, true
	case header == "":
		return revision.WithoutHeader, true
	}
	return header, revision.HandshakeSupported(header) || revision.Stateless(header)
}

// statelessStatus is the HTTP status of a stateless revision's answer: 404
// for an unknown method and 400 for a request the server refuses as
// malformed (the transport's "Protocol Version Header" and the _meta
// rules); everything else, tool failures included, is a 200 carrying the
// JSON-RPC error.
func statelessStatus(r *jsonrpc.Response) int {
	if r.Err == nil {
		return http.StatusOK
	}
	switch r.Err.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, revision.CodeHeaderMismatch, revision.CodeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// serveStateless answers a single request that carries stateless version
// information (hv is its MCP-Protocol-Version header). The checks run in
// the order the revision gives them: the version header and _meta must
// both be there and agree (-32020 / -32602), the revision must be served
// (-32022), the client's capabilities must be declared (-32602), and the
// Mcp-Method and Mcp-Name headers must match the body (-32020), all with
// HTTP 400. A _meta that names a handshake revision its header agrees with
// is served as that revision.
func (s *Server) serveStateless(c echo.Context, cl *caller, msg *jsjson.Object, hv string, rm revision.Meta, log *slog.Logger) error {
	id := jsonrpc.MessageID(msg)
	if id == nil {
		// This revision defines no client notifications over HTTP; one is
		// accepted and ignored, as before.
		return c.NoContent(http.StatusAccepted)
	}
	refuse := func(r *jsonrpc.Response) error { return s.writeResponse(c, statelessStatus(r), r, log) }
	metaVersion, isString := rm.Version.(string)
	switch {
	case hv == "":
		return refuse(jsonrpc.Fail(id, revision.CodeHeaderMismatch,
			"Header mismatch: the MCP-Protocol-Version header is required when _meta names a protocol version"))
	case !rm.HasVersion:
		return refuse(jsonrpc.Fail(id, jsonrpc.CodeInvalidParams,
			`Invalid params: _meta["`+revision.MetaProtocolVersion+`"] is required at protocol version `+hv))
	case !isString || metaVersion != hv:
		return refuse(jsonrpc.Fail(id, revision.CodeHeaderMismatch,
			"Header mismatch: MCP-Protocol-Version header value '"+hv+"' does not match body value '"+jsonrpc.JSString(rm.Version, true)+"'"))
	}
	if !revision.Stateless(hv) {
		if !revision.HandshakeSupported(hv) {
			return refuse(revision.Unsupported(id, hv))
		}
		cl.version, cl.versionStated = hv, true
		return s.answerSingle(c, cl, msg, log)
	}
	caps, ok := rm.Object.Object(revision.MetaClientCapabilities)
	if !ok {
		return refuse(jsonrpc.Fail(id, jsonrpc.CodeInvalidParams,
			`Invalid params: _meta["`+revision.MetaClientCapabilities+`"] is required and must be an object`))
	}
	h := c.Request().Header
	if r := revision.CheckStandardHeaders(trimOWS(headerJS(h, revision.HeaderMcpMethod)), trimOWS(headerJS(h, revision.HeaderMcpName)), msg); r != "" {
		return refuse(jsonrpc.Fail(id, revision.CodeHeaderMismatch, r))
	}
	cl.version, cl.versionStated, cl.clientCapabilities = hv, true, caps
	if name, _ := msg.Value("method").(string); name == methodListen {
		return s.serveListen(c, id, msg, log)
	}
	r := s.dispatchStateless(c.Request().Context(), cl, msg, log)
	return s.writeResponse(c, statelessStatus(r), r, log)
}

// serveListen answers subscriptions/listen. This server has nothing to
// notify: the catalogue never changes while the process runs (no
// listChanged capability) and it has no subscribable resources. So, as the
// subscriptions page prescribes, the acknowledgment (the stream's first
// message, tagged with the subscription id) lists none of the requested
// notification types, and the server then ends the subscription
// gracefully with the completion result instead of holding an idle stream
// open. The answer is an event stream, without event ids (streams are not
// resumable at this revision).
func (s *Server) serveListen(c echo.Context, id any, msg *jsjson.Object, log *slog.Logger) error {
	s.metrics.RPCRequest(methodListen)
	params, _ := msg.Object("params")
	if _, ok := params.Object("notifications"); !ok {
		r := jsonrpc.Fail(id, jsonrpc.CodeInvalidParams, "Invalid params: subscriptions/listen requires a notifications object")
		return s.writeResponse(c, statelessStatus(r), r, log)
	}
	subID := func() *jsjson.Object { return jsjson.NewObject(2).Set(revision.MetaSubscriptionID, id) }
	if _, isOverflow := id.(jsonrpc.OverflowID); isOverflow {
		return s.internalError(c, log, errors.New("a subscription id that overflows a double"))
	}
	ack, err := jsjson.Marshal(jsjson.NewObject(3).Set("jsonrpc", "2.0").
		Set("method", "notifications/subscriptions/acknowledged").
		Set("params", jsjson.NewObject(2).Set("_meta", subID()).Set("notifications", jsjson.NewObject(0))))
	if err != nil {
		return s.internalError(c, log, err)
	}
	meta := subID().Set(revision.MetaServerInfo, answers.ServerInfoMeta().Value(revision.MetaServerInfo))
	result, err := jsjson.Marshal(jsjson.NewObject(2).Set("resultType", "complete").Set("_meta", meta))
	if err != nil {
		return s.internalError(c, log, err)
	}
	out := append(append(make([]byte, 0, 512), "event: message\ndata: "...), ack...)
	out = append(out, "\n\nevent: message\ndata: "...)
	if out, err = jsonrpc.Result(id, result).AppendJSON(out); err != nil {
		return s.internalError(c, log, err)
	}
	out = append(out, "\n\n"...)
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.Response().WriteHeader(http.StatusOK)
	_, err = c.Response().Write(out)
	return err
}

// writeResponse answers with one JSON-RPC response as JSON; a response
// carrying a scope challenge is answered with 403 and that challenge.
func (s *Server) writeResponse(c echo.Context, status int, r *jsonrpc.Response, log *slog.Logger) error {
	if r.Challenge != nil {
		status = http.StatusForbidden
		c.Response().Header()["Www-Authenticate"] = r.Challenge
	}
	if r.RetryAfter > 0 {
		c.Response().Header()["Retry-After"] = []string{strconv.Itoa(toolcall.Seconds(r.RetryAfter))}
	}
	if r.Err == nil && len(r.Result) >= pieceWriteMin {
		// A large result (a cached tools/list, a big submission) goes out
		// behind its envelope's head instead of being copied into one
		// more buffer of its size.
		head, err := r.AppendID(append(make([]byte, 0, 64), `{"jsonrpc":"2.0","id":`...))
		if err != nil {
			return s.internalError(c, log, err)
		}
		head = append(head, `,"result":`...)
		return writeJSONPieces(c, status, head, r.Result, []byte{'}'})
	}
	out, err := r.AppendJSON(make([]byte, 0, 128+len(r.Result)))
	if err != nil {
		return s.internalError(c, log, err)
	}
	return writeJSON(c, status, out)
}

// pieceWriteMin is the result size from which writeResponse writes the
// envelope and the result as separate pieces (net/http's buffer is 4 KiB,
// so smaller answers gain nothing from it).
const pieceWriteMin = 16 << 10

// trimOWS drops the optional whitespace around a field value
// (RFC 9110 §5.5), which Go's server already does for requests it parses itself.
func trimOWS(v string) string { return strings.Trim(v, " \t") }
