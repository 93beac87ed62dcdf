package oauthserver

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

// registration is the RFC 7591 request subset the server reads. Unknown
// fields are ignored, as RFC 7591 §2 allows.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ApplicationType         string   `json:"application_type"`
}

func invalidMetadata(desc string) *Error {
	return oauthErr(http.StatusBadRequest, codeInvalidClientMetadata, desc)
}

// register is Dynamic Client Registration (RFC 7591) for public clients.
// Nothing is stored: the validated metadata is HMAC-signed into the
// client_id, so a client id the server did not issue (or one altered by a
// single bit) is refused wherever it is presented.
func (s *Server) register(c echo.Context) error {
	if done, err := s.postPrologue(c, s.registerLimit); done {
		return err
	}
	if mt, _, _ := mime.ParseMediaType(c.Request().Header.Get("Content-Type")); mt != "application/json" {
		return s.writeError(c, invalidMetadata("The registration request must be application/json"))
	}
	raw, err := io.ReadAll(io.LimitReader(c.Request().Body, maxFormBytes+1))
	if err != nil {
		return s.writeError(c, invalidMetadata("Could not read the request body"))
	}
	if len(raw) > maxFormBytes {
		return s.writeError(c, errBodySize)
	}
	var req registration
	if err := json.Unmarshal(raw, &req); err != nil {
		return s.writeError(c, invalidMetadata("The registration request must be a JSON object of client metadata"))
	}
	if m := req.TokenEndpointAuthMethod; m != "" && m != "none" {
		// RFC 7591 §3.2.1 lets the server replace a requested value; the
		// answer says "none", and clients then send no secret.
		req.TokenEndpointAuthMethod = "none"
	}
	for _, g := range req.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return s.writeError(c, invalidMetadata(`grant_types may contain only "authorization_code" and "refresh_token"`))
		}
	}
	for _, r := range req.ResponseTypes {
		if r != "code" {
			return s.writeError(c, invalidMetadata(`response_types may contain only "code"`))
		}
	}
	if a := req.ApplicationType; a != "" && a != "web" && a != "native" {
		return s.writeError(c, invalidMetadata(`application_type must be "web" or "native"`))
	}
	client, msg := newClient("", req.ClientName, req.RedirectURIs, req.ApplicationType)
	if msg != "" {
		code := codeInvalidClientMetadata
		if len(req.RedirectURIs) > 0 && len(req.RedirectURIs) <= maxRedirectURIs {
			code = codeInvalidRedirectURI
		}
		return s.writeError(c, oauthErr(http.StatusBadRequest, code, msg))
	}
	issued := s.opts.Now().Unix()
	id, err := s.encodeClientID(dcrPayload{Name: client.Name, Redirect: client.RedirectURIs, AppType: client.ApplicationType, Issued: issued, Nonce: sealing.RandomToken(9)})
	if err != nil {
		return s.writeError(c, err)
	}
	uris := make([]any, len(client.RedirectURIs))
	for i, u := range client.RedirectURIs {
		uris[i] = u
	}
	body := jsjson.NewObject(9).
		Set("client_id", id).
		Set("client_id_issued_at", float64(issued))
	if client.Name != "" {
		body.Set("client_name", client.Name)
	}
	body.Set("redirect_uris", uris).
		Set("grant_types", []any{"authorization_code", "refresh_token"}).
		Set("response_types", []any{"code"}).
		Set("token_endpoint_auth_method", "none").
		Set("application_type", client.ApplicationType)
	setNoStore(c.Response().Header())
	return writeJSON(c, http.StatusCreated, body)
}
