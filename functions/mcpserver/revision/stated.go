package revision

import (
	"encoding/base64"
	"strings"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/jsonrpc"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Request headers: the revision (2025-06-18 and later), and the standard
// request headers of 2026-07-28 (basic/transports/streamable-http). Names
// are case-insensitive, values are not.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMcpMethod       = "Mcp-Method"
	HeaderMcpName         = "Mcp-Name"
)

// Reserved _meta keys of 2026-07-28 (basic/index, "_meta").
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Error codes 2026-07-28 defines in the range it reserves (-32020 to
// -32099); the draft's earlier -32001/-32003/-32004 were renumbered.
const (
	CodeHeaderMismatch     = -32020
	CodeUnsupportedVersion = -32022
)

// The Base64 sentinel a client wraps a header value in when the value is
// not plain visible ASCII ("Value Encoding").
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// Meta is what a request's params._meta says about its revision.
type Meta struct {
	Object     *jsjson.Object // params._meta when it is an object
	Version    any            // the protocolVersion value, when present
	HasVersion bool
}

// ReadMeta reads params._meta of a request.
func ReadMeta(msg *jsjson.Object) Meta {
	params, _ := msg.Object("params")
	if params == nil {
		return Meta{}
	}
	meta, _ := params.Object("_meta")
	if meta == nil {
		return Meta{}
	}
	v, present := meta.Get(MetaProtocolVersion)
	return Meta{Object: meta, Version: v, HasVersion: present}
}

// Capabilities returns the client capabilities a request carries in
// params._meta, or nil (a server/discover sent under a handshake revision
// may carry them).
func Capabilities(params any) *jsjson.Object {
	p, ok := params.(*jsjson.Object)
	if !ok || p == nil {
		return nil
	}
	meta, ok := p.Object("_meta")
	if !ok || meta == nil {
		return nil
	}
	caps, _ := meta.Object(MetaClientCapabilities)
	return caps
}

// DeclaredExtension returns the settings a client declares for the
// extension id (capabilities.extensions[id]) when they are an object, else
// nil.
func DeclaredExtension(caps *jsjson.Object, id string) *jsjson.Object {
	if caps == nil {
		return nil
	}
	ext, ok := caps.Object("extensions")
	if !ok || ext == nil {
		return nil
	}
	settings, _ := ext.Object(id)
	return settings
}

// Unsupported is the UnsupportedProtocolVersionError for requested:
// -32022 with the revisions served, so a client can retry with one of
// them. The message also names them, for clients that only show the text.
func Unsupported(id any, requested string) *jsonrpc.Response {
	supported := make([]any, len(served))
	for i, v := range served {
		supported[i] = v
	}
	return jsonrpc.FailWithData(id, CodeUnsupportedVersion, "Unsupported protocol version: "+requested+
		" (supported versions: "+strings.Join(served, ", ")+")",
		jsjson.NewObject(2).Set("supported", supported).Set("requested", requested))
}

// CheckStandardHeaders compares the Mcp-Method header value hm, and the
// Mcp-Name value hn for the methods that name a tool, prompt or resource,
// with the body, and returns the HeaderMismatch message, or "" when they
// agree. Both values are already trimmed of optional whitespace.
func CheckStandardHeaders(hm, hn string, msg *jsjson.Object) string {
	m, present := msg.Get("method")
	method, isStr := m.(string)
	switch {
	case hm == "":
		return "Header mismatch: the Mcp-Method header is required"
	case !isStr || hm != method:
		return "Header mismatch: Mcp-Method header value '" + hm + "' does not match body value '" + jsonrpc.JSString(m, present) + "'"
	}
	field := ""
	switch method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	default:
		return ""
	}
	if hn == "" {
		return "Header mismatch: the Mcp-Name header is required for " + method
	}
	name, err := DecodeHeaderValue(hn)
	if err != "" {
		return "Header mismatch: Mcp-Name header value " + err
	}
	var body any
	var inBody bool
	if params, _ := msg.Object("params"); params != nil {
		body, inBody = params.Get(field)
	}
	if s, ok := body.(string); !ok || s != name {
		return "Header mismatch: Mcp-Name header value '" + hn + "' does not match body value '" + jsonrpc.JSString(body, inBody) + "'"
	}
	return ""
}

// DecodeHeaderValue returns a header value as the body would hold it: the
// Base64 sentinel form decoded, anything else as it is. A plain value must
// be visible ASCII or spaces; err says what is wrong otherwise.
func DecodeHeaderValue(v string) (value, err string) {
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
