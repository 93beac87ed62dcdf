package mcpserver

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/toolcall"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Revision 2026-07-28 is stateless: there is no initialize; every request
// names its revision in params._meta (and, on HTTP, in MCP-Protocol-Version),
// declares the client's capabilities there, and mirrors its method (and
// tool name) into the Mcp-Method (Mcp-Name) headers so intermediaries can
// route without reading the body. A request is served at this revision
// when its MCP-Protocol-Version header says 2026-07-28 or its _meta names
// any revision; everything else keeps the handshake revisions' behaviour.

// Request headers of the 2026-07-28 transport (basic/transports/streamable-http,
// "Standard Request Headers"). Names are case-insensitive, values are not.
const (
	headerMcpMethod = "Mcp-Method"
	headerMcpName   = "Mcp-Name"
)

// Reserved _meta keys of 2026-07-28 (basic/index, "_meta").
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Error codes 2026-07-28 defines in the range it reserves (-32020 to
// -32099); the draft's earlier -32001/-32003/-32004 were renumbered.
const (
	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022
)

// The Base64 sentinel a client wraps a header value in when the value is
// not plain visible ASCII ("Value Encoding").
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// requestMeta is what a request's params._meta says about its revision.
type requestMeta struct {
	meta       *jsjson.Object // params._meta when it is an object
	version    any            // the protocolVersion value, when present
	hasVersion bool
}

// readMeta reads params._meta of a request.
func readMeta(msg *jsjson.Object) requestMeta {
	params, _ := msg.Object("params")
	if params == nil {
		return requestMeta{}
	}
	meta, _ := params.Object("_meta")
	if meta == nil {
		return requestMeta{}
	}
	v, present := meta.Get(metaProtocolVersion)
	return requestMeta{meta: meta, version: v, hasVersion: present}
}

// modernStatus is the HTTP status of a 2026-07-28 answer: 404 for an
// unknown method and 400 for a request the server refuses as malformed
// (the transport's "Protocol Version Header" and the _meta rules);
// everything else, tool failures included, is a 200 carrying the JSON-RPC
// error, as before.
func modernStatus(r *response) int {
	if r.err == nil {
		return http.StatusOK
	}
	switch r.err.code {
	case codeMethodNotFound:
		return http.StatusNotFound
	case codeInvalidParams, codeHeaderMismatch, codeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// unsupportedVersion is the UnsupportedProtocolVersionError for requested:
// -32022 with the revisions served, so a client can retry with one of them.
// The message also names them, for clients that only show the text.
func unsupportedVersion(id any, requested string) *response {
	supported := make([]any, len(servedVersions))
	for i, v := range servedVersions {
		supported[i] = v
	}
	data, err := jsjson.Marshal(jsjson.NewObject(2).Set("supported", supported).Set("requested", requested))
	if err != nil { // strings and a list of strings always encode
		panic(err)
	}
	r := errorResponse(id, codeUnsupportedVersion, "Unsupported protocol version: "+requested+
		" (supported versions: "+strings.Join(servedVersions, ", ")+")")
	r.err.data = data
	return r
}

// serveModern answers a single request that carries 2026-07-28 version
// information (hv is its MCP-Protocol-Version header). The checks run in
// the order the revision gives them: the version header and _meta must
// both be there and agree (-32020 / -32602), the revision must be served
// (-32022), the client's capabilities must be declared (-32602), and the
// Mcp-Method and Mcp-Name headers must match the body (-32020), all with
// HTTP 400. A _meta that names a handshake revision its header agrees with
// is served as that revision.
func (s *Server) serveModern(c echo.Context, cl *caller, msg *jsjson.Object, hv string, rm requestMeta, log *slog.Logger) error {
	id := messageID(msg)
	if id == nil {
		// This revision defines no client notifications over HTTP; one is
		// accepted and ignored, as before.
		return c.NoContent(http.StatusAccepted)
	}
	refuse := func(r *response) error { return s.writeResponse(c, modernStatus(r), r, log) }
	metaVersion, _ := rm.version.(string)
	switch {
	case hv == "":
		return refuse(errorResponse(id, codeHeaderMismatch,
			"Header mismatch: the MCP-Protocol-Version header is required when _meta names a protocol version"))
	case !rm.hasVersion:
		return refuse(errorResponse(id, codeInvalidParams,
			`Invalid params: _meta["`+metaProtocolVersion+`"] is required at protocol version `+versionModern))
	case !isString(rm.version) || metaVersion != hv:
		return refuse(errorResponse(id, codeHeaderMismatch,
			"Header mismatch: MCP-Protocol-Version header value '"+hv+"' does not match body value '"+jsString(rm.version, true)+"'"))
	}
	if hv != versionModern {
		if !versionSupported(hv) {
			return refuse(unsupportedVersion(id, hv))
		}
		cl.version, cl.versionStated = hv, true
		return s.answerSingle(c, cl, msg, log)
	}
	caps, ok := rm.meta.Object(metaClientCapabilities)
	if !ok {
		return refuse(errorResponse(id, codeInvalidParams,
			`Invalid params: _meta["`+metaClientCapabilities+`"] is required and must be an object`))
	}
	if r := checkStandardHeaders(c.Request().Header, msg); r != "" {
		return refuse(errorResponse(id, codeHeaderMismatch, r))
	}
	cl.version, cl.versionStated, cl.clientCapabilities = versionModern, true, caps
	if name, _ := msg.Value("method").(string); name == methodListen {
		return s.serveListen(c, id, msg, log)
	}
	r := s.dispatchModern(c.Request().Context(), cl, msg, log)
	return s.writeResponse(c, modernStatus(r), r, log)
}

// dispatchModern runs a 2026-07-28 request through the method table.
// Methods the revision removed (initialize, ping, …) and unknown ones are
// -32601, which the transport answers with 404.
func (s *Server) dispatchModern(ctx context.Context, cl *caller, msg *jsjson.Object, log *slog.Logger) *response {
	m, present := msg.Get("method")
	name, _ := m.(string)
	s.metrics.RPCRequest(name)
	entry := methods[name]
	if entry.modern != nil {
		return entry.modern(s, ctx, cl, msg, log)
	}
	text := "Method not found: " + jsString(m, present)
	if entry.legacy != nil {
		text += " (removed in protocol version " + versionModern + ")"
	}
	return errorResponse(messageID(msg), codeMethodNotFound, text)
}

// checkStandardHeaders compares Mcp-Method, and Mcp-Name for the methods
// that name a tool, prompt or resource, with the body, and returns the
// HeaderMismatch message, or "" when they agree. Go's HTTP server has
// already dropped the optional whitespace around header values.
func checkStandardHeaders(h http.Header, msg *jsjson.Object) string {
	m, present := msg.Get("method")
	method, isStr := m.(string)
	hm := trimOWS(headerJS(h, headerMcpMethod))
	switch {
	case hm == "":
		return "Header mismatch: the Mcp-Method header is required"
	case !isStr || hm != method:
		return "Header mismatch: Mcp-Method header value '" + hm + "' does not match body value '" + jsString(m, present) + "'"
	}
	field := ""
	switch method {
	case methodToolsCall, "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	default:
		return ""
	}
	hn := trimOWS(headerJS(h, headerMcpName))
	if hn == "" {
		return "Header mismatch: the Mcp-Name header is required for " + method
	}
	name, err := decodeHeaderValue(hn)
	if err != "" {
		return "Header mismatch: Mcp-Name header value " + err
	}
	var body any
	var inBody bool
	if params, _ := msg.Object("params"); params != nil {
		body, inBody = params.Get(field)
	}
	if s, ok := body.(string); !ok || s != name {
		return "Header mismatch: Mcp-Name header value '" + hn + "' does not match body value '" + jsString(body, inBody) + "'"
	}
	return ""
}

// decodeHeaderValue returns a header value as the body would hold it: the
// Base64 sentinel form decoded, anything else as it is. A plain value must
// be visible ASCII or spaces; err says what is wrong otherwise.
func decodeHeaderValue(v string) (value, err string) {
	if len(v) >= len(base64Prefix)+len(base64Suffix) && strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix) {
		b, e := base64.StdEncoding.DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
		if e != nil {
			return "", "is not valid Base64"
		}
		return string(b), ""
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", "contains characters outside visible ASCII; send it as =?base64?…?="
		}
	}
	return v, ""
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
		r := errorResponse(id, codeInvalidParams, "Invalid params: subscriptions/listen requires a notifications object")
		return s.writeResponse(c, modernStatus(r), r, log)
	}
	sub, err := jsjson.AppendCompact(nil, id)
	if err != nil {
		return s.internalError(c, log, err)
	}
	out := make([]byte, 0, 512)
	out = append(out, "event: message\ndata: "...)
	out = append(out, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"`+metaSubscriptionID+`":`...)
	out = append(out, sub...)
	out = append(out, `},"notifications":{}}}`+"\n\nevent: message\ndata: "...)
	result := make([]byte, 0, 160)
	result = append(result, `{"resultType":"complete","_meta":{"`+metaSubscriptionID+`":`...)
	result = append(result, sub...)
	result = append(result, `,"io.modelcontextprotocol/serverInfo":{"name":"`+serverName+`","version":"`+serverVersion+`"}}}`...)
	if out, err = resultResponse(id, result).appendJSON(out); err != nil {
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
func (s *Server) writeResponse(c echo.Context, status int, r *response, log *slog.Logger) error {
	if r.challenge != nil {
		status = http.StatusForbidden
		c.Response().Header()["Www-Authenticate"] = r.challenge
	}
	if r.retryAfter > 0 {
		c.Response().Header()["Retry-After"] = []string{strconv.Itoa(toolcall.Seconds(r.retryAfter))}
	}
	if r.err == nil && len(r.result) >= pieceWriteMin {
		// A large result (a cached tools/list, a big submission) goes out
		// behind its envelope's head instead of being copied into one
		// more buffer of its size.
		head, err := r.appendID(append(make([]byte, 0, 64), `{"jsonrpc":"2.0","id":`...))
		if err != nil {
			return s.internalError(c, log, err)
		}
		head = append(head, `,"result":`...)
		return writeJSONPieces(c, status, head, r.result, []byte{'}'})
	}
	out, err := r.appendJSON(make([]byte, 0, 128+len(r.result)))
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

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
