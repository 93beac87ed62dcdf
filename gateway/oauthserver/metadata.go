package oauthserver

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// ScopesSupported are the scopes clients may ask for. offline_access is
// accepted (and granted: every grant gets a refresh token) because clients
// copy it from the protected-resource metadata.
var ScopesSupported = []string{"mcp:read", "mcp:write", "offline_access"}

func (s *Server) metadataObject(oidc bool) *jsjson.Object {
	scopes := make([]any, len(ScopesSupported))
	for i, v := range ScopesSupported {
		scopes[i] = v
	}
	o := jsjson.NewObject(20).
		Set("issuer", s.opts.Issuer).
		Set("authorization_endpoint", s.endpoint("/authorize")).
		Set("token_endpoint", s.endpoint("/token")).
		Set("registration_endpoint", s.endpoint("/register")).
		Set("revocation_endpoint", s.endpoint("/revoke")).
		Set("scopes_supported", scopes).
		Set("response_types_supported", []any{"code"}).
		Set("response_modes_supported", []any{"query"}).
		Set("grant_types_supported", []any{"authorization_code", "refresh_token"}).
		Set("token_endpoint_auth_methods_supported", []any{"none"}).
		Set("revocation_endpoint_auth_methods_supported", []any{"none"}).
		Set("code_challenge_methods_supported", []any{"S256"}).
		Set("authorization_response_iss_parameter_supported", true).
		Set("client_id_metadata_document_supported", true)
	if oidc {
		// Behind Supabase's API gateway only /functions/v1/… reaches the
		// gateway, so <issuer>/.well-known/openid-configuration is the one
		// location MCP clients try (spec 2025-11-25, "Authorization Server
		// Metadata Discovery") that works there. OpenID Discovery parsers
		// require these three fields; no ID token is ever issued (openid is
		// not a supported scope) and the key set is empty.
		o.Set("jwks_uri", s.endpoint("/jwks.json")).
			Set("subject_types_supported", []any{"public"}).
			Set("id_token_signing_alg_values_supported", []any{"RS256"})
	}
	return o
}

func (s *Server) renderMetadata() (oauth, oidc []byte, err error) {
	if oauth, err = jsjson.Marshal(s.metadataObject(false)); err != nil {
		return nil, nil, err
	}
	oidc, err = jsjson.Marshal(s.metadataObject(true))
	return oauth, oidc, err
}

func (s *Server) serveDocument(c echo.Context, doc []byte) error {
	h := c.Response().Header()
	setCORS(h, "GET, OPTIONS")
	switch c.Request().Method {
	case http.MethodOptions:
		return c.NoContent(http.StatusNoContent)
	case http.MethodGet, http.MethodHead:
		h.Set("Cache-Control", "public, max-age=3600")
		return c.Blob(http.StatusOK, "application/json", doc)
	}
	return s.methodNotAllowed(c, "GET, OPTIONS")
}

func (s *Server) serveMetadata(c echo.Context) error { return s.serveDocument(c, s.metadata) }
func (s *Server) serveOIDC(c echo.Context) error     { return s.serveDocument(c, s.oidc) }
func (s *Server) serveJWKS(c echo.Context) error     { return s.serveDocument(c, []byte(`{"keys":[]}`)) }
