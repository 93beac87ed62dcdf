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

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
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
	hv := headerJS(c.Request().Header, headerProtocolVersion)
	version, ok := s.requestVersion(hv)
	if !s.pinProtocol && hv == versionModern {
		version, ok = versionModern, true
	}
	cl.version, cl.requestID = version, requestID(c)
	cl.versionStated = hv != "" && !s.pinProtocol

	body, err := s.readBody(c.Request())
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			log.Info("mcp-server: request body too large", "limit_bytes", s.maxBody)
			return writeJSON(c, http.StatusRequestEntityTooLarge, envelope(codeInvalidRequest, msgBodyTooLarge))
		}
		log.Info("mcp-server: reading request body", "error", err)
		return writeJSON(c, http.StatusBadRequest, envelope(codeParseError, msgParseError))
	}
	msg, err := jsjson.Decode(body)
	if err != nil {
		// The original answered 500 with the JavaScript parser's text;
		// JSON-RPC asks for -32700, and the client is at fault (400).
		return writeJSON(c, http.StatusBadRequest, envelope(codeParseError, msgParseError))
	}

	obj, isObject := msg.(*jsjson.Object)
	var meta requestMeta
	if isObject && !s.pinProtocol {
		meta = readMeta(obj)
		if hv == versionModern || meta.hasVersion {
			return s.serveModern(c, cl, obj, hv, meta, log)
		}
	}
	if !ok {
		var id any
		if isObject {
			id = messageID(obj)
		}
		return s.writeResponse(c, http.StatusBadRequest, unsupportedVersion(id, hv), log)
	}

	accept := headerJS(c.Request().Header, "Accept")
	acceptsSSE := strings.Contains(accept, "text/event-stream")
	acceptsJSON := accept == "" || strings.Contains(accept, "application/json") || strings.Contains(accept, "*/*")

	switch m := msg.(type) {
	case []any:
		if !batchesAllowed(version) {
			return writeJSON(c, http.StatusBadRequest, envelope(codeInvalidRequest,
				"Invalid Request: batching is not supported in protocol version "+version))
		}
		return s.serveBatch(c, cl, m, acceptsSSE && !acceptsJSON, log)
	case *jsjson.Object:
		return s.answerSingle(c, cl, m, log)
	case nil:
		// The original threw a TypeError reading .id of null (500).
		return writeJSON(c, http.StatusBadRequest, envelope(codeInvalidRequest, msgInvalidRequest))
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
		return writeJSON(c, http.StatusBadRequest, envelope(codeInvalidRequest, fmt.Sprintf(msgBatchTooLargeFn, s.maxBatch)))
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
	responses := make([]*response, 0, len(batch))
	for i, el := range batch {
		switch kinds[i] {
		case entryRequest:
			if r := s.dispatch(ctx, cl, el.(*jsjson.Object), log); r != nil {
				responses = append(responses, r)
			}
		case entryInvalid:
			responses = append(responses, errorResponse(nil, codeInvalidRequest, msgInvalidRequest))
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
func appendJSONArray(dst []byte, responses []*response) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, r := range responses {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = r.appendJSON(dst); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

// appendSSEMessages appends one `message` event per response, numbered from
// 1 within this answer (docs/contract/protocol.md A6).
func appendSSEMessages(dst []byte, responses []*response) ([]byte, error) {
	var err error
	for i, r := range responses {
		dst = append(dst, "id: "...)
		dst = strconv.AppendInt(dst, int64(i+1), 10)
		dst = append(dst, "\nevent: message\ndata: "...)
		if dst, err = r.appendJSON(dst); err != nil {
			return nil, err
		}
		dst = append(dst, "\n\n"...)
	}
	return dst, nil
}

// internalError answers the A5 envelope for a fault of this server.
func (s *Server) internalError(c echo.Context, log *slog.Logger, err error) error {
	log.Error("mcp-server: internal error", "error", err)
	return writeJSON(c, http.StatusInternalServerError, envelope(codeInternalError, msgInternalError))
}
